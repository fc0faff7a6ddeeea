import { getJson } from '../api.js';
import type { Message, SessionSummary, SessionView } from '../api-types.js';
import { type Child, h, replace } from '../dom.js';
import { formatDuration, formatJson, formatTime, formatUsage, plural } from '../format.js';
import { formatRoute } from '../route.js';
import { buildTimeline, type Invocation, type TimelineEntry } from '../timeline.js';

// Sessions asked for at a time, and the most the list is ever reloaded with at once (the API's cap).
const PAGE = 100;
const MAX_PAGE = 1000;

/** One page of `GET /sessions`. */
interface SessionPage {
  sessions: SessionSummary[];
  nextCursor?: string;
}

/**
 * Sessions: the list (`GET /sessions`), and the chosen one's timeline (`GET /sessions/:id`): per
 * invocation its agents, model calls (request, response, tokens, cost, duration), tool calls
 * (arguments, result, duration), state changes, transfers, approvals and errors.
 */
export class SessionsView {
  readonly element = h('section', { class: 'view sessions-view', 'data-view': 'sessions' });
  #list = h('nav', { class: 'session-list' });
  #detail = h('div', { class: 'timeline' });
  #sessions: SessionSummary[] = [];
  // The child sessions of the session shown.
  #children: SessionSummary[] = [];

  constructor() {
    replace(
      this.element,
      h(
        'header',
        { class: 'view-head' },
        h('h2', {}, 'Sessions'),
        h('button', { type: 'button', onclick: () => void this.show(this.#shown) }, 'Refresh'),
      ),
      h('div', { class: 'split' }, this.#list, this.#detail),
    );
  }

  #shown: string | undefined;
  // The cursor of the next page of the list, while there is one.
  #next: string | undefined;
  #more = h('button', { type: 'button', class: 'more', onclick: () => this.#showMore() }, 'Show more');

  /** Reloads the list and shows `session`'s timeline (or a prompt to pick one). */
  async show(session: string | undefined): Promise<void> {
    // Never another session's timeline under this one's name while it loads.
    if (session !== this.#shown) replace(this.#detail, h('p', { class: 'muted' }, 'Loading…'));
    this.#shown = session;
    // A page at a time (thousands of sessions are not fetched and drawn at once); as many as were
    // shown already, so that picking one further down the list keeps the reader's place (past
    // the most one answer holds, in as many pages as it takes).
    const wanted = Math.max(PAGE, this.#sessions.length);
    const sessions: SessionSummary[] = [];
    let next: string | undefined;
    do {
      const limit = Math.min(MAX_PAGE, wanted - sessions.length);
      const page = await getJson<SessionPage>(
        `/sessions?limit=${limit}${next === undefined ? '' : `&cursor=${encodeURIComponent(next)}`}`,
      );
      // A later show() won the race: its answer is the one to draw.
      if (session !== this.#shown) return;
      sessions.push(...page.sessions);
      next = page.nextCursor;
    } while (next !== undefined && sessions.length < wanted);
    this.#sessions = sessions;
    this.#next = next;
    replace(
      this.#list,
      sessions.length === 0 && h('p', { class: 'muted' }, 'No sessions yet: chat with an agent first.'),
      sessions.map((s) => this.#item(s)),
      next !== undefined && this.#more,
    );
    this.#more.disabled = false;
    if (!session) {
      replace(this.#detail, h('p', { class: 'muted' }, 'Pick a session to see its timeline.'));
      return;
    }
    const [view, children] = await Promise.all([
      getJson<SessionView>(`/sessions/${encodeURIComponent(session)}`),
      // Its agent tools' sessions, wherever they are in the list's pages.
      getJson<SessionPage>(`/sessions?parentId=${encodeURIComponent(session)}`),
    ]);
    if (session !== this.#shown) return;
    this.#children = children.sessions;
    replace(
      this.#detail,
      h(
        'header',
        {},
        h('h3', {}, `${view.agent ?? 'session'} `, h('code', {}, view.id)),
        view.parentId &&
          h(
            'a',
            { href: formatRoute({ view: 'sessions', session: view.parentId }) },
            '← the calling session',
          ),
        view.agent &&
          !view.parentId &&
          h(
            'a',
            { class: 'continue', href: formatRoute({ view: 'chat', agent: view.agent, session: view.id }) },
            view.paused ? 'waiting for a decision: open in the chat' : 'continue in the chat',
          ),
      ),
      buildTimeline(view.events).map((invocation) => this.#invocation(invocation, view.id)),
      Object.keys(view.state).length > 0 &&
        h('details', { class: 'state' }, h('summary', {}, 'state now'), h('pre', {}, formatJson(view.state))),
    );
  }

  #item(s: SessionSummary): HTMLElement {
    return h(
      'a',
      {
        class: `session-item${s.id === this.#shown ? ' current' : ''}`,
        href: formatRoute({ view: 'sessions', session: s.id }),
        'data-session': s.id,
      },
      h('strong', {}, s.agent ?? '?'),
      s.paused && h('span', { class: 'badge warn' }, 'paused'),
      s.parentId && h('span', { class: 'badge small' }, 'agent tool'),
      // The list goes by creation: that time is the one shown, the last write's in the title.
      h(
        'span',
        {
          class: 'muted',
          title: `started ${formatTime(s.createdAt)}, last written ${formatTime(s.updatedAt)}`,
        },
        `${s.eventCount} events · ${formatTime(s.createdAt)}`,
      ),
      h('code', { class: 'muted' }, s.id),
    );
  }

  // The next page of the list, after what is shown.
  #showMore(): void {
    const cursor = this.#next;
    if (cursor === undefined || this.#more.disabled) return;
    this.#more.disabled = true;
    getJson<SessionPage>(`/sessions?limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`).then(
      (page) => {
        // The list was loaded again meanwhile: this page follows another one.
        if (this.#next !== cursor) return;
        // The list goes by creation, so a page never repeats one; a session two stores hold could.
        const known = new Set(this.#sessions.map((s) => s.id));
        const fresh = page.sessions.filter((s) => !known.has(s.id));
        this.#sessions.push(...fresh);
        this.#next = page.nextCursor;
        this.#more.before(...fresh.map((s) => this.#item(s)));
        if (page.nextCursor === undefined) this.#more.remove();
        this.#more.disabled = false;
      },
      (error: Error) => {
        this.#more.disabled = false;
        this.#more.before(h('p', { class: 'line error' }, `Failed: ${error.message}`));
      },
    );
  }

  #invocation(invocation: Invocation, session: string): HTMLElement {
    const end = invocation.end;
    return h(
      'section',
      { class: 'invocation', 'data-invocation': invocation.id },
      h(
        'header',
        {},
        h('span', { class: 'muted' }, formatTime(invocation.start)),
        h('q', {}, invocation.input ?? '(resumed)'),
        end && h('span', { class: `badge status-${end.status}` }, end.status),
        end && h('span', { class: 'muted' }, `${formatDuration(end.duration)} · ${formatUsage(end.usage)}`),
      ),
      h(
        'ol',
        {},
        invocation.entries.map((entry) => this.#entry(entry, session)),
      ),
      end?.output && h('div', { class: 'output' }, end.output),
    );
  }

  #entry(entry: TimelineEntry, session: string): HTMLElement {
    const row = (summary: Child[], ...body: Child[]) =>
      indent(
        entry.depth,
        h(
          'li',
          { class: `entry entry-${entry.kind}` },
          body.length === 0
            ? h('div', { class: 'summary' }, h('span', { class: 'time' }, formatTime(entry.time)), summary)
            : h(
                'details',
                {},
                h('summary', {}, h('span', { class: 'time' }, formatTime(entry.time)), summary),
                body,
              ),
        ),
      );
    switch (entry.kind) {
      case 'agent_start':
        return row([h('span', { class: 'kind' }, 'agent'), h('strong', {}, entry.agent), ' starts']);
      case 'agent_end':
        return row(
          [h('span', { class: 'kind' }, 'agent'), h('strong', {}, entry.agent), ' ends'],
          h('pre', {}, entry.output),
        );
      case 'model':
        return row(
          [
            h('span', { class: 'kind' }, 'model'),
            h('strong', {}, entry.model ?? entry.agent),
            ` ${entry.agent} · ${formatUsage(entry.usage)} · ${formatDuration(entry.duration)}`,
          ],
          h(
            'h4',
            {},
            `Request: the conversation up to this call (${plural(entry.request.length, 'message')})`,
          ),
          h('ol', { class: 'messages' }, entry.request.map(message)),
          h('h4', {}, 'Response'),
          entry.response ? message(entry.response) : h('p', { class: 'muted' }, 'none recorded'),
        );
      case 'tool': {
        const child = this.#children.find((s) => s.parentId === session && s.parentCallId === entry.call.id);
        const result = entry.result;
        return row(
          [
            h('span', { class: 'kind' }, 'tool'),
            h('strong', {}, entry.call.name),
            ` ${entry.agent} · `,
            result
              ? h(
                  'span',
                  { class: result.isError ? 'error' : '' },
                  `${result.isError ? 'failed' : 'ok'} · ${formatDuration(result.duration)}`,
                )
              : h('span', { class: 'muted' }, 'no result'),
          ],
          h('h4', {}, 'Arguments'),
          h('pre', {}, formatJson(entry.call.arguments)),
          h('h4', {}, 'Result'),
          h('pre', {}, result ? result.content : '(none)'),
          child &&
            h(
              'a',
              { href: formatRoute({ view: 'sessions', session: child.id }) },
              'the agent tool’s session →',
            ),
        );
      }
      case 'state':
        return row(
          [h('span', { class: 'kind' }, 'state'), Object.keys(entry.delta).join(', ')],
          h('pre', {}, formatJson(entry.delta)),
        );
      case 'transfer':
        return row([h('span', { class: 'kind' }, 'transfer'), `${entry.from} → ${entry.to}`]);
      case 'approval':
        return row([
          h('span', { class: 'kind' }, 'approval'),
          `waited for a person on ${entry.pending.map((p) => p.call.name).join(', ')}`,
        ]);
      case 'resumed':
        return row([h('span', { class: 'kind' }, 'resumed'), 'after the decisions, the run goes on']);
      case 'fallback':
        return row([
          h('span', { class: 'kind' }, 'fallback'),
          `${entry.from} → ${entry.to}: ${entry.reason}`,
        ]);
      case 'error':
        return row([h('span', { class: 'kind error' }, 'error'), `${entry.code}: ${entry.message}`]);
    }
  }
}

// Through the CSSOM: the page's policy refuses style attributes.
function indent(depth: number, row: HTMLElement): HTMLElement {
  row.style.setProperty('--depth', String(depth));
  return row;
}

function message(m: Message): HTMLElement {
  return h(
    'li',
    { class: `message role-${m.role}` },
    h('span', { class: 'role' }, m.name ? `${m.role} (${m.name})` : m.role),
    m.content !== null && h('pre', {}, m.content),
    m.toolCalls?.map((c) => h('pre', { class: 'call' }, `${c.name}(${JSON.stringify(c.arguments)})`)),
  );
}
