import { type Part, type StreamResponse, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import type { RemoteAgentSpec } from '@agentctl/config';
import {
  type Agent,
  AgentError,
  deadline,
  errorText,
  type HiddenValues,
  type InvocationContext,
  linkedSignal,
  type Session,
  StreamedHiding,
} from '@agentctl/core';
import { textMessage, textOf } from './a2a-parts.js';
import { a2aRemoteFetch, checkEndpoint, refusalIn } from './a2a-remote-fetch.js';

/**
 * A remote agent (`type: a2a`) in a local tree: each turn sends the invocation's input to the
 * remote agent as one A2A message (the local session id is the A2A context id, so the remote keeps
 * the conversation), streams its answer as this agent's text, and ends with its final answer. A
 * remote `input-required` ends the turn with the remote's question; the next message of the same
 * session answers that task. `scrub` hides secrets (a key in the URL) in what its errors say;
 * `hidden` (the project's secrets) in its answers, streamed or not, as an LLM agent's.
 *
 * @example
 * registry.registerRemoteAgent('a2a', (spec, ctx) => a2aRemoteAgent(spec, (t) => ctx.secrets.scrub(t), ctx.secrets));
 */
export function a2aRemoteAgent(
  spec: RemoteAgentSpec,
  scrub: (text: string) => string = (t) => t,
  hidden?: HiddenValues,
): Agent {
  return new A2ARemoteAgent(spec, scrub, hidden);
}

/**
 * Reaches a remote A2A agent as its first turn would, without sending it anything: its card, with
 * its headers, within `limits.timeout` (or the card's 30 s), and a transport the card offers.
 * Throws saying why not, secrets scrubbed (what `validate --connect` reports).
 *
 * @example
 * registry.registerRemoteAgent('a2a', factory, (spec, ctx) => reachA2ARemote(spec, (t) => ctx.secrets.scrub(t)));
 */
export async function reachA2ARemote(
  spec: RemoteAgentSpec,
  scrub: (text: string) => string = (t) => t,
): Promise<void> {
  const signal =
    spec.timeout === undefined ? new AbortController().signal : AbortSignal.timeout(spec.timeout);
  try {
    await new A2ARemoteAgent(spec, scrub, undefined).reach(signal);
  } catch (error) {
    throw new Error(
      scrub(
        signal.aborted
          ? `its card did not arrive within ${spec.timeout} ms (limits.timeout)`
          : remoteReason(error),
      ),
    );
  }
}

// The card is one small JSON document a server answers at once: past this, the server is not there.
const CARD_TIMEOUT_MS = 30_000;

// An answer is text for a session and a model's context: past this many characters a remote agent
// is sending something else (a dump, a loop), and reading on would only fill the session and memory.
const MAX_ANSWER_CHARS = 4 * 2 ** 20;

// A response that is not an event stream (the card, a whole task, an error) is read up to this:
// room for an answer of MAX_ANSWER_CHARS in any script, in its JSON, and no more.
const MAX_BODY_BYTES = 16 * 2 ** 20;

/**
 * What an answer of a remote agent keeps in its message's `providerData.a2a`: the task it came
 * from, its state, and the artifacts it gave. The session carries it, so the next message of the
 * session continues a task that waits for input in any process that runs it (`run --session`).
 */
interface KeptTask {
  taskId: string;
  state: string;
  artifacts: string[];
}

class A2ARemoteAgent implements Agent {
  readonly type = 'a2a' as const;
  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly Agent[] = [];
  parent?: Agent;
  readonly #spec: RemoteAgentSpec;
  readonly #scrub: (text: string) => string;
  readonly #hidden: HiddenValues | undefined;
  #client: Client | undefined;

  constructor(spec: RemoteAgentSpec, scrub: (text: string) => string, hidden: HiddenValues | undefined) {
    this.#spec = spec;
    this.#scrub = scrub;
    this.#hidden = hidden;
    this.name = spec.name;
    this.description = spec.description;
  }

  async runInvocation(ctx: InvocationContext): Promise<void> {
    try {
      await this.#turn(ctx);
    } catch (error) {
      // The URL, the card's address in the SDK's messages, the remote's own words: a `${VAR}` put
      // into the URL or headers is never printed, nor kept in the session.
      if (error instanceof Error) error.message = this.#scrub(error.message);
      throw error;
    }
  }

  async #turn(ctx: InvocationContext): Promise<void> {
    if (ctx.consumeReplay()) return;
    ctx.emit('agent_start', { agent: this.name });
    const contextId = ctx.session.id;
    const waiting = waitingTask(ctx.session, this.name);
    const turn = new RemoteTurn(waiting?.artifacts);
    let taskId = waiting?.taskId ?? '';
    // The agent's own time budget (`limits.timeout`), inside the invocation's: reaching it names this agent.
    const limit = this.#spec.timeout;
    const budget = deadline(ctx.signal, limit, () => {
      return new AgentError(`agent ${this.name} reached its time limit of ${limit} ms`, 'TIMEOUT', {
        context: { agent: this.name, limit },
      });
    });
    // Stops the stream (and its connection) once the answer is too long to keep reading.
    const enough = new AbortController();
    // The remote may say back a secret it was sent: none is shown, even split across events.
    const hiding = this.#hidden ? new StreamedHiding(this.#hidden) : undefined;
    const show = (text: string) => {
      const shown = hiding ? hiding.push(text) : text;
      if (shown) ctx.emit('text_delta', { text: shown });
    };
    const streamSignal = linkedSignal([budget.signal, enough.signal]);
    try {
      const client = await this.#connect(budget.signal);
      const stream = client.sendMessageStream(
        {
          tenant: '',
          configuration: undefined,
          metadata: undefined,
          message: textMessage('user', ctx.shared.input, contextId, taskId),
        },
        { signal: streamSignal.signal },
      );
      for await (const event of stream) {
        const text = turn.read(event);
        if (turn.taskId) taskId = turn.taskId;
        if (turn.output.length > MAX_ANSWER_CHARS) {
          enough.abort();
          break;
        }
        if (text) show(text);
      }
    } catch (error) {
      if (budget.signal.aborted) throw budget.signal.reason;
      if (!enough.signal.aborted) throw this.#failure(remoteReason(error), error);
    } finally {
      streamSignal.dispose();
      budget.dispose();
    }
    if (enough.signal.aborted)
      throw this.#failure(
        `its answer passed ${MAX_ANSWER_CHARS.toLocaleString('en')} characters, the most agentctl keeps of a remote answer; it stopped reading there`,
      );
    const { state, message } = turn;
    if (state === undefined)
      throw this.#failure(
        `its answer ended before its task did (the task was still ${stateName(turn.lastState)})`,
      );
    if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_REJECTED)
      throw new AgentError(
        `remote agent ${this.name} failed: ${message || 'no reason given'}`,
        'PROVIDER_ERROR',
      );
    if (state === TaskState.TASK_STATE_CANCELED)
      throw new AgentError(`remote agent ${this.name} cancelled its task`, 'ABORTED');
    if (state === TaskState.TASK_STATE_AUTH_REQUIRED)
      throw this.#failure(
        `its task needs authentication that agentctl cannot give${message ? `: ${message}` : ''}; set the credentials in the agent's \`headers\``,
      );
    // A question is asked after what the task streamed before it; an answer is what it streamed, or
    // its final status message when it streamed none. Whatever was not streamed is shown now.
    const streamed = turn.output;
    const output =
      state === TaskState.TASK_STATE_INPUT_REQUIRED
        ? [streamed, message].filter((text) => text !== '').join('\n\n')
        : streamed || message;
    if (output.length > streamed.length) show(output.slice(streamed.length));
    const rest = hiding?.flush();
    if (rest) ctx.emit('text_delta', { text: rest });
    const answer = this.#hidden ? this.#hidden.scrub(output) : output;
    const kept: KeptTask = { taskId, state: stateName(state), artifacts: [...turn.artifacts] };
    ctx.emit('message', { message: { role: 'assistant', content: answer, providerData: { a2a: kept } } });
    ctx.emit('agent_end', { agent: this.name, output: answer });
  }

  #failure(reason: string, cause?: unknown): AgentError {
    return new AgentError(`remote agent ${this.name} at ${this.#spec.url}: ${reason}`, 'PROVIDER_ERROR', {
      cause,
    });
  }

  /** Fetches the card and makes a client from it, as the first turn does; throws saying why not. */
  async reach(signal: AbortSignal): Promise<void> {
    await this.#connect(signal);
  }

  // The client, made from the remote card the first time a turn succeeds in fetching it; a failed
  // fetch is tried again on the next turn. The card is fetched within this turn's signal and
  // CARD_TIMEOUT_MS: a server that never answers it would hold the run (and a Ctrl-C) for minutes.
  async #connect(signal: AbortSignal): Promise<Client> {
    if (this.#client) return this.#client;
    const remote = a2aRemoteFetch(this.#spec.url, this.#spec.headers, MAX_BODY_BYTES);
    const cardLimit = deadline(
      signal,
      CARD_TIMEOUT_MS,
      () => new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    );
    // A2A 0.3 too: a server that speaks only 0.3 (most deployed before 1.0) has a 0.3 card, which
    // the SDK reads, and talks to, only with its compatibility layer on.
    const legacyCompat = { enabled: true };
    const factory = new ClientFactory({
      transports: [
        guardedTransport(new JsonRpcTransportFactory({ fetchImpl: remote, legacyCompat }), this.#spec),
      ],
      cardResolver: new DefaultAgentCardResolver({
        fetchImpl: (input, init) => remote(input, { ...init, signal: cardLimit.signal }),
        legacyCompat,
      }),
    });
    // The card is below the endpoint's path; a query the URL has (a key) goes with it.
    const card = new URL(this.#spec.url);
    card.pathname = `${card.pathname.replace(/\/+$/, '')}/.well-known/agent-card.json`;
    try {
      this.#client = await factory.createFromUrl(card.href, '');
    } catch (error) {
      if (cardLimit.expired && !signal.aborted)
        throw new Error(`its card at ${card.href} did not arrive within ${CARD_TIMEOUT_MS / 1000} s`, {
          cause: error,
        });
      throw error;
    } finally {
      cardLimit.dispose();
    }
    return this.#client;
  }
}

// Why an exchange failed: agentctl's own refusal in its words (the SDK wraps it in its own), else
// what the SDK or the remote said, a proxy's error page by its title and all of it cut short.
function remoteReason(error: unknown): string {
  return refusalIn(error)?.message ?? errorText((error as Error).message);
}

// The card's endpoint is checked as the client is made from it (a run and `validate --connect` alike).
function guardedTransport(factory: TransportFactory, spec: RemoteAgentSpec): TransportFactory {
  return {
    get protocolName() {
      return factory.protocolName;
    },
    create(url, card) {
      checkEndpoint(spec.url, spec.headers, url);
      return factory.create(url, card);
    },
  };
}

/**
 * What one turn's stream says: the answer's text as it streams, and the task's last state. A
 * server may answer with the whole task instead (one that does not stream sends nothing else):
 * its state and its artifacts count then, less those an earlier turn of the task already gave.
 */
class RemoteTurn {
  taskId: string | undefined;
  /** The task's state once it stopped working: ended, or waiting for input. */
  state: TaskState | undefined;
  /** The last state the stream told, working ones included. */
  lastState: TaskState | undefined;
  /** The text of the final status message. */
  message = '';
  output = '';
  readonly artifacts: Set<string>;

  constructor(earlier: readonly string[] = []) {
    this.artifacts = new Set(earlier);
  }

  /** Takes one event in; returns the text it adds to the answer. */
  read(event: StreamResponse): string {
    const payload = event.payload;
    switch (payload?.$case) {
      case 'task': {
        const task = payload.value;
        this.taskId = task.id;
        this.#status(task.status?.state, task.status?.message?.parts);
        let text = '';
        for (const artifact of task.artifacts ?? []) {
          if (this.artifacts.has(artifact.artifactId)) continue;
          this.artifacts.add(artifact.artifactId);
          text += textOf(artifact.parts ?? []);
        }
        return this.#add(text);
      }
      case 'artifactUpdate': {
        const artifact = payload.value.artifact;
        if (artifact) this.artifacts.add(artifact.artifactId);
        return this.#add(textOf(artifact?.parts ?? []));
      }
      case 'statusUpdate':
        this.#status(payload.value.status?.state, payload.value.status?.message?.parts);
        return '';
      case 'message':
        this.state = TaskState.TASK_STATE_COMPLETED;
        this.lastState = this.state;
        return this.#add(textOf(payload.value.parts));
      default:
        return '';
    }
  }

  #add(text: string): string {
    this.output += text;
    return text;
  }

  #status(state: TaskState | undefined, parts: Part[] | undefined): void {
    if (state === undefined) return;
    this.lastState = state;
    const working =
      state === TaskState.TASK_STATE_WORKING ||
      state === TaskState.TASK_STATE_SUBMITTED ||
      state === TaskState.TASK_STATE_UNSPECIFIED;
    if (working) return;
    this.state = state;
    this.message = textOf(parts ?? []);
  }
}

// The task the session's last answer of this agent left waiting for input, if it did.
function waitingTask(session: Session, agent: string): KeptTask | undefined {
  for (let i = session.events.length - 1; i >= 0; i--) {
    const event = session.events[i];
    if (event.type !== 'message' || event.author !== agent) continue;
    const kept = event.message.providerData?.a2a as Partial<KeptTask> | undefined;
    if (kept?.state !== 'input-required' || typeof kept.taskId !== 'string') return undefined;
    return {
      taskId: kept.taskId,
      state: kept.state,
      artifacts: Array.isArray(kept.artifacts) ? kept.artifacts : [],
    };
  }
  return undefined;
}

function stateName(state: TaskState | undefined): string {
  if (state === undefined) return 'not started';
  return (TaskState[state] ?? String(state))
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}
