import { ApiError, getJson, postStream, Silent, Unauthorized, Unreachable } from '../api.js';
import type { AgentEvent, AgentNode, EventOf, PendingApproval, SessionView, ToolCall } from '../api-types.js';
import { append, h, replace } from '../dom.js';
import { formatDuration, formatJson, formatUsage } from '../format.js';
import { formatRoute } from '../route.js';

// A session whose stream went silent is checked again after 0.5 s, then twice as long each time, up to 30 s.
const FIRST_CHECK_MS = 500;
const MAX_CHECK_MS = 30_000;

/** The checks of one session whose run's stream went silent. */
interface SessionCheck {
  session: string;
  /** Answers received so far. */
  count: number;
  /** How many events the session had when last shown (-1: not shown yet). */
  shown: number;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * A chat with one agent: each message is a run (`POST /agents/:agent/runs`, continuing the session),
 * its events streamed into the log as they come: text as it is written, tool calls with their
 * results, transfers; a paused run asks here for approve/deny or an answer, sent as decisions
 * (`POST /sessions/:id/decisions`) whose resumed run streams the same way. An existing session
 * (one paused by `agentctl run`, say) opens with its conversation, and its waiting calls to decide.
 */
export class ChatView {
  readonly element = h('section', { class: 'view chat-view', 'data-view': 'chat' });
  #agents: AgentNode[] = [];
  #agent: string | undefined;
  #session: string | undefined;
  #busy = false;
  #running: Promise<void> = Promise.resolve();
  // While a stored session's events are replayed: messages are shown whole, old pauses not asked again.
  #replaying = false;
  #select = h('select', { 'aria-label': 'Agent', onchange: () => this.#choose(this.#select.value) });
  #sessionLabel = h('span', { class: 'session-label muted' });
  #log = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite' });
  #input = h('textarea', { rows: 2, placeholder: 'Message the agent (Enter sends, Shift+Enter a new line)' });
  #send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  // The assistant bubble text deltas go to, until a tool call or a new message ends it.
  #bubble: HTMLElement | undefined;
  // Tool cards by invocation and call id (see #toolKey).
  #tools = new Map<string, HTMLDetailsElement>();
  // The session whose run's stream was cut, until it is shown again as agentctl kept it.
  #lost: string | undefined;
  // The stream went silent (agentctl did not stop): its run may still be going on there.
  #lostSilently = false;
  // Stops reading the run streaming into the chat now.
  #reading: AbortController | undefined;
  // The checks of a session whose stream went silent, until its run is seen to end.
  #check: SessionCheck | undefined;
  // Where the notice over that session says when it is checked next.
  #lostStatus: HTMLElement | undefined;

  constructor() {
    this.#input.addEventListener('keydown', (event) => {
      // An Enter that ends an input method's composition (Japanese, Chinese, Korean...) picks the
      // word; it does not send the half-written message (229: Safari's composing key).
      if (event.isComposing || event.keyCode === 229) return;
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this.#submit();
      }
    });
    const form = h(
      'form',
      {
        class: 'chat-form',
        onsubmit: (event) => {
          event.preventDefault();
          this.#submit();
        },
      },
      this.#input,
      this.#send,
    );
    replace(
      this.element,
      h(
        'header',
        { class: 'view-head' },
        h('h2', {}, 'Chat'),
        h('label', {}, 'with ', this.#select),
        h(
          'button',
          {
            type: 'button',
            onclick: () => {
              this.#reset();
              if (this.#agent)
                history.replaceState(null, '', formatRoute({ view: 'chat', agent: this.#agent }));
            },
          },
          'New session',
        ),
        this.#sessionLabel,
      ),
      this.#log,
      form,
    );
    this.#reset();
  }

  /** The agents that can be chatted with (from `GET /project`). */
  setAgents(agents: AgentNode[]): void {
    this.#agents = agents.filter((a) => a.runnable);
    const chosen = this.#agent ?? this.#agents[0]?.name;
    // An agent renamed or removed by a save stays what the chat names (its messages would go there),
    // rather than the select showing another agent than the one that would be asked.
    const gone = chosen !== undefined && !this.#agents.some((a) => a.name === chosen);
    replace(
      this.#select,
      gone &&
        h(
          'option',
          { value: chosen, selected: true, disabled: true },
          `${chosen} (no longer in the project)`,
        ),
      this.#agents.map((a) => h('option', { value: a.name, selected: a.name === chosen }, a.name)),
    );
    if (!this.#agent && chosen) this.#agent = chosen;
  }

  /** Opens the chat with `agent` (a new session when it changes), or continues `session`. */
  show(agent: string | undefined, session?: string): void {
    if (agent && agent !== this.#agent) this.#choose(agent, session);
    else if (session && session !== this.#session) this.#open(session);
    this.#input.focus();
  }

  #choose(agent: string, session?: string): void {
    if (agent === this.#agent && !session) return;
    this.#agent = agent;
    this.#select.value = agent;
    if (session) {
      this.#open(session);
      return;
    }
    this.#reset();
    history.replaceState(null, '', formatRoute({ view: 'chat', agent }));
  }

  // `notice` (why the session is shown again) goes after its conversation, before what waits now.
  // Shown again, the session stays as it is until its answer comes (and if none does).
  #open(session: string, notice?: HTMLElement): void {
    if (session !== this.#session) {
      this.#reset();
      this.#session = session;
      this.#showSession();
      this.#log.replaceChildren();
    }
    getJson<SessionView>(`/sessions/${encodeURIComponent(session)}`)
      .then((view) => this.#show(session, view, notice))
      .catch((error: Error) => {
        if (notice) this.#add(notice);
        this.#add(h('div', { class: 'line error' }, `Failed: ${error.message}`));
      });
  }

  #show(session: string, view: SessionView, notice: HTMLElement | undefined): void {
    // Another session was opened meanwhile: this answer is not the chat's any more.
    if (this.#session !== session) return;
    this.#log.replaceChildren();
    this.#tools.clear();
    this.#replaying = true;
    try {
      for (const event of view.events) this.#onEvent(event);
    } finally {
      this.#replaying = false;
      this.#bubble = undefined;
    }
    if (notice) this.#add(notice);
    if (view.paused && view.pending.length > 0) this.#add(this.#decisions(view.pending));
  }

  /**
   * Shows again, as agentctl kept it, the session whose run's stream was cut (agentctl stopped, the
   * connection dropped), if agentctl answers: called when the page's event stream is back, and when
   * a run's stream is lost. A stream that went silent (agentctl did not stop) may have left its run
   * going on there: the session is then checked again, further and further apart (up to every
   * {@link MAX_CHECK_MS}), and shown as it grows, until its run has ended or the chat moves on.
   */
  resync(): void {
    const session = this.#lost;
    if (session === undefined || session !== this.#session || this.#busy) return;
    clearTimeout(this.#check?.timer);
    const before = this.#check?.session === session ? this.#check : undefined;
    // A new object per request: an answer overtaken by a later check is dropped.
    const asked: SessionCheck = { session, count: before?.count ?? 0, shown: before?.shown ?? -1 };
    this.#check = asked;
    getJson<SessionView>(`/sessions/${encodeURIComponent(session)}`).then(
      (view) => {
        // A later check (the event stream came back meanwhile) or another session took over.
        if (this.#lost !== session || this.#check !== asked) return;
        const ended = view.events.at(-1)?.type === 'run_end';
        asked.count++;
        if (ended || !this.#lostSilently) {
          this.#lost = undefined;
          this.#check = undefined;
          const settled = ended && asked.shown >= 0 ? ', its last run ended since' : '';
          const unended = ended ? settled : ', its last run cut short';
          this.#show(session, view, this.#lostNotice(`${unended}.`, ended ? 'settled' : 'cut'));
          return;
        }
        if (view.events.length !== asked.shown) {
          asked.shown = view.events.length;
          this.#show(
            session,
            view,
            this.#lostNotice(
              ', its last run not ended when asked: it may still be going on in agentctl (its timeline shows how far).',
              'waiting',
            ),
          );
        }
        this.#waitToCheck(asked);
      },
      // Not back yet: asked again later, and at once when the page's event stream is back.
      () => {
        if (this.#lost === session && this.#check === asked) this.#waitToCheck(asked);
      },
    );
  }

  // The notice over a session shown again after its stream was lost; `state` says how far that went.
  #lostNotice(tail: string, state: 'waiting' | 'settled' | 'cut'): HTMLElement {
    const status = h('span', { class: 'lost-status' });
    this.#lostStatus = state === 'waiting' ? status : undefined;
    return h(
      'div',
      { class: 'line error lost-session', 'data-state': state },
      `The connection to agentctl was lost during the run: this is the session as agentctl kept it${tail}`,
      status,
    );
  }

  #waitToCheck(check: SessionCheck): void {
    const ms = Math.min(FIRST_CHECK_MS * 2 ** check.count, MAX_CHECK_MS);
    check.timer = setTimeout(() => this.resync(), ms);
    if (this.#lostStatus)
      this.#lostStatus.textContent = ` Checked ${check.count} ${check.count === 1 ? 'time' : 'times'}; checking again in ${formatDuration(ms)}.`;
  }

  #stopChecking(): void {
    clearTimeout(this.#check?.timer);
    this.#check = undefined;
    this.#lostStatus = undefined;
  }

  #reset(): void {
    // A run still streaming stays in its own session (the sessions view has it), not in the next.
    this.#reading?.abort();
    this.#reading = undefined;
    this.#session = undefined;
    this.#lost = undefined;
    this.#stopChecking();
    this.#bubble = undefined;
    this.#tools.clear();
    replace(this.#log, h('p', { class: 'muted hint' }, 'A new session starts with your first message.'));
    this.#showSession();
  }

  #showSession(): void {
    replace(
      this.#sessionLabel,
      this.#session
        ? [
            'session ',
            h('code', {}, this.#session),
            ' · ',
            h('a', { href: formatRoute({ view: 'sessions', session: this.#session }) }, 'timeline'),
          ]
        : 'no session yet',
    );
  }

  #submit(): void {
    const text = this.#input.value.trim();
    if (!text || this.#busy || !this.#agent) return;
    this.#input.value = '';
    this.#log.querySelector('.hint')?.remove();
    // What the reader sends is where they look: the log goes down to it, wherever it was.
    this.#add(h('div', { class: 'bubble user' }, text), true);
    void this.#stream(`/agents/${encodeURIComponent(this.#agent)}/runs`, {
      input: text,
      sessionId: this.#session,
    }).then((error) => {
      // Refused, or never sent: what was typed is not lost.
      if ((error instanceof ApiError || error instanceof Unreachable) && !this.#input.value)
        this.#input.value = text;
    });
  }

  // One run at a time: decisions taken while the paused run's stream is still closing wait for it
  // (the server refuses a second run on a session that is still running).
  #stream(path: string, body: unknown): Promise<unknown> {
    const done = this.#running.then(() => this.#streamNow(path, body));
    this.#running = done.then(() => undefined);
    return done;
  }

  // Resolves with what made the request fail (shown in the log already), if anything did.
  async #streamNow(path: string, body: unknown): Promise<unknown> {
    const reading = new AbortController();
    this.#reading = reading;
    this.#setBusy(true);
    try {
      await postStream(
        path,
        body,
        (session) => {
          // A run agentctl took: what the checks of a lost stream waited for is what this one says.
          // (A message refused or never sent leaves them going: the session is still not settled.)
          this.#lost = undefined;
          this.#stopChecking();
          this.#session = session;
          this.#showSession();
        },
        (event) => this.#onEvent(event as AgentEvent),
        reading.signal,
      );
      return undefined;
    } catch (error) {
      // The chat moved to another session or agent: this run goes on in the server, out of view.
      if (reading.signal.aborted) return undefined;
      const session = this.#session;
      const answered = error instanceof ApiError || error instanceof Unauthorized;
      if (!answered && !(error instanceof Unreachable) && session !== undefined) {
        // Not refused: cut off. The run may have gone on, or ended with the server.
        this.#add(
          h(
            'div',
            { class: 'line error' },
            `Lost the connection to agentctl during the run (${(error as Error).message}); the session is shown as agentctl kept it once it answers again`,
          ),
        );
        this.#lost = session;
        this.#lostSilently = error instanceof Silent;
        return error;
      }
      const conflict = error instanceof ApiError && error.status === 409 && session !== undefined;
      const line = h(
        'div',
        { class: 'line error' },
        `${conflict ? 'Not sent' : 'Failed'}: ${(error as Error).message}`,
      );
      // The session moved on without this page (decided in another tab, paused by another run):
      // it is shown as it is now, with what waits now.
      if (conflict) this.#open(session, line);
      else this.#add(line);
      return error;
    } finally {
      if (this.#reading === reading) this.#reading = undefined;
      this.#bubble = undefined;
      this.#setBusy(false);
      this.#showSession();
      this.resync();
    }
  }

  #setBusy(busy: boolean): void {
    this.#busy = busy;
    this.#send.disabled = busy;
    this.element.classList.toggle('busy', busy);
  }

  #onEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'agent_start':
        if (event.author !== this.#agent)
          this.#add(h('div', { class: 'line agent' }, `${event.agent} is answering`));
        break;
      case 'text_delta': {
        this.#bubble ??= this.#assistant(event.author);
        const following = atBottom(this.#log);
        append(this.#bubble, [event.text]);
        if (following) this.#log.scrollTop = this.#log.scrollHeight;
        break;
      }
      case 'message': {
        const { message } = event;
        if (this.#replaying && message.role === 'user' && message.content)
          this.#add(h('div', { class: 'bubble user' }, message.content));
        if (this.#replaying && message.role === 'assistant' && message.content)
          append(this.#assistant(event.author), [message.content]);
        this.#bubble = undefined;
        break;
      }
      case 'tool_call':
        this.#bubble = undefined;
        this.#toolCall(event.invocationId, event.call);
        break;
      case 'tool_result':
        this.#toolResult(event);
        break;
      case 'transfer':
        this.#add(h('div', { class: 'line transfer' }, `transfer ${event.from} → ${event.to}`));
        break;
      case 'approval_required':
        for (const item of event.pending) {
          const status = this.#tools
            .get(toolKey(event.invocationId, item.call.id))
            ?.querySelector('.tool-status');
          if (status)
            status.textContent = item.kind === 'input' ? 'waiting for your answer' : 'waiting for approval';
        }
        if (!this.#replaying) this.#add(this.#decisions(event.pending));
        break;
      case 'error':
        this.#add(h('div', { class: 'line error' }, `${event.code}: ${event.message}`));
        break;
      case 'run_end': {
        const { status, usage } = event;
        this.#add(
          h(
            'div',
            { class: `line run-end status-${status}`, 'data-status': status },
            status === 'paused' ? 'paused: waiting for your decision' : status,
            ` · ${formatDuration(event.duration)} · ${formatUsage(usage)}`,
          ),
        );
        break;
      }
    }
  }

  // A new answer of `author`; returns where its text goes.
  #assistant(author: string): HTMLElement {
    const text = h('span', { class: 'text' });
    this.#add(
      h(
        'div',
        { class: 'bubble assistant', 'data-author': author },
        h('span', { class: 'author' }, author),
        text,
      ),
    );
    return text;
  }

  #toolCall(invocationId: string, call: ToolCall): void {
    const key = toolKey(invocationId, call.id);
    // A resumed run calls again what waited for a decision: the card it has already, still without
    // a result, is the one. A card with a result was an earlier call whose id the model used again.
    if (this.#tools.get(key)?.classList.contains('pending')) return;
    const card = h(
      'details',
      { class: 'tool-call pending', 'data-call': call.id, open: true },
      h(
        'summary',
        {},
        h('span', { class: 'tool-name' }, call.name),
        h('span', { class: 'tool-status' }, 'running…'),
      ),
      h('pre', { class: 'args' }, formatJson(call.arguments)),
    );
    this.#tools.set(key, card);
    this.#add(card);
  }

  #toolResult(event: EventOf<'tool_result'>): void {
    const card = this.#tools.get(toolKey(event.invocationId, event.callId));
    if (!card) return;
    card.classList.remove('pending');
    card.classList.toggle('failed', event.isError === true);
    card.open = false;
    replace(
      card.querySelector('.tool-status')!,
      `${event.isError ? 'failed' : 'done'} · ${formatDuration(event.duration)}`,
    );
    card.append(h('pre', { class: 'result' }, event.content));
  }

  // One row per waiting call; once every call has a decision they go together, and the run resumes.
  #decisions(pending: PendingApproval[]): HTMLElement {
    const chosen = new Map<string, Record<string, unknown>>();
    const block = h('div', { class: 'decisions' });
    // The session these calls wait in, whatever the chat shows when a button is pressed.
    const session = this.#session;
    const decide = (row: HTMLElement, call: ToolCall, decision: Record<string, string>, label: string) => {
      // The call as shown goes with the decision: the server refuses it (409) if the call waiting
      // under that id is another one by now (decided in another tab, then paused again).
      chosen.set(call.id, { callId: call.id, name: call.name, arguments: call.arguments, ...decision });
      for (const control of row.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input'))
        control.disabled = true;
      row.append(h('span', { class: 'decided' }, label));
      if (chosen.size !== pending.length || !session) return;
      void this.#stream(`/sessions/${encodeURIComponent(session)}/decisions`, {
        decisions: [...chosen.values()],
      });
    };
    for (const item of pending) {
      const row = h(
        'div',
        { class: 'decision', 'data-call': item.call.id },
        h('div', {}, h('strong', {}, item.call.name), ` asked by ${item.agent}`),
        item.reason && h('div', { class: 'reason' }, item.reason),
        h('pre', { class: 'args' }, formatJson(item.call.arguments)),
      );
      if (item.kind === 'input') {
        const answer = h('input', { type: 'text', 'aria-label': 'Answer', placeholder: 'Your answer' });
        row.append(
          answer,
          h(
            'button',
            {
              class: 'primary',
              onclick: () => decide(row, item.call, { decision: 'answer', answer: answer.value }, 'answered'),
            },
            'Answer',
          ),
        );
      } else {
        row.append(
          h(
            'button',
            {
              class: 'primary',
              onclick: () => decide(row, item.call, { decision: 'approve' }, 'approved'),
            },
            'Approve',
          ),
          h(
            'button',
            { class: 'danger', onclick: () => decide(row, item.call, { decision: 'deny' }, 'denied') },
            'Deny',
          ),
        );
      }
      block.append(row);
    }
    return block;
  }

  // The log follows what is added (text, a tool card, a status line), unless the reader scrolled
  // up to read: then it stays where they are.
  #add<T extends HTMLElement>(element: T, follow = false): T {
    const following = follow || atBottom(this.#log);
    this.#log.append(element);
    if (following) this.#log.scrollTop = this.#log.scrollHeight;
    return element;
  }
}

// Within a line of the end: the reader follows the log (a few pixels of rounding are not a scroll).
function atBottom(log: HTMLElement): boolean {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 24;
}

// A call id is unique only within a message's run (and its resumes, which keep the invocation's id):
// models number their calls afresh, so another message of the session may use the same id again.
function toolKey(invocationId: string, callId: string): string {
  return `${invocationId} ${callId}`;
}
