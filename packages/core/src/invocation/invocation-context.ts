import type { Agent } from '../agent.js';
import type { ApprovalDecision, ExecutedToolCall, RunOptions } from '../agent-config.js';
import { AgentError, runError } from '../errors.js';
import type { AgentEvent, EventPayloads, EventType, PendingApproval } from '../events.js';
import type { Message } from '../messages.js';
import { notifyEvent, type ObservedInvocation } from '../run-observer.js';
import type { Session, SessionStore } from '../session.js';
import { applyDelta } from '../state-delta.js';
import { markStored, storedKeysOf } from '../stored-keys.js';
import { addUsage, type UsageStats } from '../usage.js';
import { eventOf } from './event-of.js';
import { historyFor } from './history.js';

/** Limits that apply to a whole invocation, across every agent of the tree. */
export interface InvocationLimits {
  /** Model calls across all agents. */
  maxModelCalls?: number;
  /** Tokens (every bucket) across all agents. */
  maxTokens?: number;
}

/** What every context of one invocation shares. */
export interface InvocationShared {
  invocationId: string;
  /** Distinguishes event ids of a resumed invocation from those of its first attempt. */
  attempt: number;
  /** `<invocationId>.<attempt>.`, made once: every event id is this and a sequence number. */
  idPrefix: string;
  seq: number;
  session: Session;
  store: SessionStore;
  root: Agent;
  input: string;
  userId?: string;
  signal: AbortSignal;
  abort(reason: unknown): void;
  usage: UsageStats;
  limits: InvocationLimits;
  /** Hands an event to the caller (stream and callbacks). */
  sink(event: AgentEvent): void;
  /** Queues an event for the session store. */
  persist(event: AgentEvent): void;
  /** Writes `app:` and `user:` keys to the store's shared state, whole. */
  persistScoped(delta: Record<string, unknown>): void;
  /**
   * The value a shared key `state.update` stored has in the store as far as this invocation knows:
   * after the last of its own writes of the key (updates and whole writes, in the order they reach
   * the store), else as the run loaded it, else `recorded`.
   */
  storedValue(key: string, recorded: unknown): unknown;
  /**
   * Updates an `app:`/`user:` key in the store at once and atomically, through the invocation's
   * lease; undefined when the key is not shared (a session key, a `user:` key without a user) or
   * the store cannot.
   */
  updateShared(key: string, update: (current: unknown) => unknown): Promise<unknown> | undefined;
  ended: boolean;
  /** `temp:` state: visible during the invocation, never stored. */
  temp: Record<string, unknown>;
  pending: PendingApproval[];
  decisions: Map<string, ApprovalDecision>;
  /** The calls the invocation was paused on, when it is being resumed. */
  resumePending: readonly PendingApproval[];
  /** Completed agent runs per branch recorded before a resume; each is skipped once. */
  replay: Map<string, number>;
  /** Names of the parallel agents of the tree (their branches are isolated). */
  parallel: ReadonlySet<string>;
  /** Per-invocation settings and callbacks for its agents (`agent.run`'s options). */
  options: RunOptions;
  /** Every tool call executed in this invocation, in order. */
  toolCalls: ExecutedToolCall[];
  /** The parsed final answer of the last agent that answered. */
  value: unknown;
  /** Set when run observers were registered as the invocation started: they see its events. */
  observed?: ObservedInvocation;
  /** Set when the session's events are to be written before each step's tools run. */
  writeBeforeTools: boolean;
  /** Waits for every queued write of the session; throws the first that failed. */
  flush(): Promise<void>;
  /** For an agent tool's child run: the path of the agent that called it, root first. */
  callerPath: readonly string[];
}

/** A run of an agent that completed before the invocation paused, met again on resume. */
export interface ReplayedRun {
  /** The agent this run handed the conversation to, if it did. */
  transfer?: string;
}

// Per invocation: each completed run by branch, in order: the transfer it made and where its
// `agent_end` is in the log. Read from the events recorded before the resume, so it is taken once,
// before the resumed run adds any of its own.
interface RecordedRun {
  transfer: string | undefined;
  end: number;
}
const runsOfInvocations = new WeakMap<InvocationShared, Map<string, RecordedRun[]>>();

function replayedRuns(shared: InvocationShared): Map<string, RecordedRun[]> {
  let runs = runsOfInvocations.get(shared);
  if (runs) return runs;
  runs = new Map();
  const open = new Map<string, string>();
  const events = shared.session.events;
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (event.invocationId !== shared.invocationId) continue;
    if (event.type === 'transfer') open.set(event.branch, event.to);
    if (event.type !== 'agent_end') continue;
    const list = runs.get(event.branch) ?? [];
    list.push({ transfer: open.get(event.branch), end: i });
    open.delete(event.branch);
    runs.set(event.branch, list);
  }
  runsOfInvocations.set(shared, runs);
  return runs;
}

/** Where escalation stops: the nearest enclosing loop agent owns one scope. */
export interface EscalationScope {
  escalated: boolean;
}

/**
 * One agent's view of an invocation: the session, its branch, the state it sees, and the means to
 * emit events and to stop. Workflow agents make child contexts for their sub-agents.
 */
export class InvocationContext {
  readonly shared: InvocationShared;
  readonly agent: Agent;
  /** Dotted path of agents from the root, such as `report.research.web`. */
  readonly branch: string;
  /** State written in this parallel branch, not yet merged (undefined outside parallel branches). */
  readonly overlay: Record<string, unknown> | undefined;
  readonly #parent: InvocationContext | undefined;
  readonly escalation: EscalationScope | undefined;

  constructor(
    shared: InvocationShared,
    agent: Agent,
    branch: string,
    options: {
      parent?: InvocationContext;
      overlay?: Record<string, unknown>;
      escalation?: EscalationScope;
    } = {},
  ) {
    this.shared = shared;
    this.agent = agent;
    this.branch = branch;
    this.#parent = options.parent;
    this.overlay = options.overlay;
    this.escalation = options.escalation;
    if (shared.replay.size > 0) replayedRuns(shared);
  }

  get invocationId(): string {
    return this.shared.invocationId;
  }

  get session(): Session {
    return this.shared.session;
  }

  get signal(): AbortSignal {
    return this.shared.signal;
  }

  /** True once the invocation should do no more work: ended, paused, or aborted. */
  get stopped(): boolean {
    return this.shared.ended || this.shared.pending.length > 0 || this.shared.signal.aborted;
  }

  /** This context's agent as a path of names, root first (an agent tool's callers included). */
  agentPath(): string[] {
    const names: string[] = [];
    for (let agent: Agent | undefined = this.agent; agent; agent = agent.parent) names.unshift(agent.name);
    return [...this.shared.callerPath, ...names];
  }

  /**
   * `thrown` as an {@link AgentError} that says it happened in this context's agent, unless an
   * agent deeper in the tree said so first.
   */
  locate(thrown: unknown): AgentError {
    const error = runError(thrown);
    error.agentPath ??= this.agentPath();
    return error;
  }

  /** Runs this context's agent; an error it throws says it happened there (or deeper). */
  runAgent(): Promise<void> {
    return this.agent.runInvocation(this).catch((thrown: unknown) => {
      throw this.locate(thrown);
    });
  }

  /** Stops the invocation after the current event. */
  endInvocation(): void {
    this.shared.ended = true;
  }

  /** A context for a sub-agent; `isolate` gives it its own state overlay (a parallel branch). */
  child(
    agent: Agent,
    options: { isolate?: Record<string, unknown>; escalation?: EscalationScope } = {},
  ): InvocationContext {
    return contextOf(this.shared, agent, `${this.branch}.${agent.name}`, {
      parent: this,
      overlay: options.isolate,
      escalation: options.escalation ?? this.escalation,
    });
  }

  /** A context for an agent reached by transfer: the branch is its place in the tree. */
  transferTo(agent: Agent, branch: string): InvocationContext {
    return contextOf(this.shared, agent, branch, { escalation: this.escalation });
  }

  /** The state as this agent sees it: session state, then `temp:` keys, then its branch's writes. */
  state(): Record<string, unknown> {
    const layers: Record<string, unknown>[] = [];
    for (let ctx: InvocationContext | undefined = this; ctx; ctx = ctx.#parent)
      if (ctx.overlay) layers.unshift(ctx.overlay);
    const state = Object.assign({}, this.shared.session.state, this.shared.temp, ...layers);
    // A branch's deletions are kept in its overlay as `null` (see #applyState); the session and
    // `temp:` never hold one.
    if (layers.length > 0) for (const key of Object.keys(state)) if (state[key] === null) delete state[key];
    return state;
  }

  /** The conversation this agent sees. */
  history(): Message[] {
    return historyFor(this.shared.session.events, this.branch, this.shared.parallel);
  }

  /**
   * Defined (once per recorded run) when a completed run of this agent on this branch is being
   * replayed on resume; it names the agent that run transferred to, which must be followed again.
   */
  consumeReplay(): ReplayedRun | undefined {
    const shared = this.shared;
    const left = shared.replay.get(this.branch) ?? 0;
    if (left === 0) return undefined;
    shared.replay.set(this.branch, left - 1);
    const runs = replayedRuns(shared);
    const run = runs.get(this.branch)?.shift();
    // The runs of the agents below it that ended within the run replayed whole (a loop's earlier
    // pass, a fan-out's branches) are skipped with it: left counted, a later run of those agents
    // (the pass that paused) would be taken for one of them and skipped instead of resumed.
    if (run)
      for (const [branch, below] of runs) {
        if (!branch.startsWith(`${this.branch}.`)) continue;
        while (below.length > 0 && below[0].end < run.end) {
          below.shift();
          shared.replay.set(branch, (shared.replay.get(branch) ?? 1) - 1);
        }
      }
    return { transfer: run?.transfer };
  }

  /** Emits an event authored by this context's agent (or `author`), applying its state delta. */
  emit<T extends EventType>(
    type: T,
    payload: EventPayloads[T],
    stateDelta?: Record<string, unknown>,
    author: string = this.agent.name,
  ): AgentEvent {
    const shared = this.shared;
    const id = shared.idPrefix + shared.seq++;
    const event = eventOf(id, shared.invocationId, this.branch, author, Date.now(), type, payload);
    if (stateDelta) this.#applyState(event, stateDelta);
    if (type === 'usage') this.#countUsage((payload as EventPayloads['usage']).usage);
    this.record(event);
    return event;
  }

  /** Hands an already-built event to the stream and, unless it is a text delta, to the session log. */
  record(event: AgentEvent): void {
    this.deliver(event);
    if (event.type === 'text_delta') return;
    this.shared.session.events.push(event);
    this.shared.persist(event);
  }

  /**
   * Queues an event for the session log without handing it to anyone yet: an end that holds only
   * once it is stored (`run_end`), delivered by {@link InvocationContext.deliver} after the write,
   * or taken back by {@link InvocationContext.unstage} when the write failed.
   */
  stage<T extends EventType>(type: T, payload: EventPayloads[T]): AgentEvent {
    const shared = this.shared;
    const event = eventOf(
      shared.idPrefix + shared.seq++,
      shared.invocationId,
      this.branch,
      this.agent.name,
      Date.now(),
      type,
      payload,
    );
    shared.session.events.push(event);
    shared.persist(event);
    return event;
  }

  /** Hands an event to the observers and the caller (stream and callback). */
  deliver(event: AgentEvent): void {
    if (this.shared.observed) notifyEvent(event, this.shared.observed);
    this.shared.sink(event);
  }

  /** Takes back an event {@link InvocationContext.stage} queued and the store refused. */
  unstage(event: AgentEvent): void {
    const events = this.shared.session.events;
    const at = events.lastIndexOf(event);
    if (at >= 0) events.splice(at, 1);
  }

  #applyState(event: AgentEvent, delta: Record<string, unknown>): void {
    const kept: Record<string, unknown> = {};
    const scoped: Record<string, unknown> = {};
    const stored = storedKeysOf(delta);
    const storedHere: string[] = [];
    for (const [key, value] of Object.entries(delta)) {
      if (key.startsWith('temp:')) {
        if (value === null) delete this.shared.temp[key];
        else this.shared.temp[key] = value;
        continue;
      }
      const shared = key.startsWith('app:') || key.startsWith('user:');
      if (shared && stored?.has(key)) {
        storedHere.push(key);
        // What the store holds after every update of the key this invocation made, not what this
        // one update returned: calls of one step end in any order.
        kept[key] = this.overlay ? value : this.shared.storedValue(key, value);
        continue;
      }
      kept[key] = value;
      if (shared) scoped[key] = value;
    }
    if (Object.keys(kept).length === 0) return;
    if (storedHere.length > 0) event.storedKeys = storedHere;
    if (this.overlay) {
      // A deletion stays in the overlay as `null`: removed from it, the key would show through
      // from the session again, and the branches' merge would never delete it.
      Object.assign(this.overlay, kept);
      for (const key of Object.keys(kept)) markStored(this.overlay, key, stored?.has(key) === true);
      event.branchDelta = kept;
      return;
    }
    applyDelta(this.shared.session.state, kept);
    event.stateDelta = kept;
    if (Object.keys(scoped).length > 0) this.shared.persistScoped(scoped);
  }

  /**
   * Counts a child run's model call (an agent tool's, forwarded) in this invocation's usage and
   * against its limits; the agent's own usage is its own calls only.
   */
  countChildUsage(usage: UsageStats): void {
    this.#countUsage(usage);
  }

  #countUsage(usage: UsageStats): void {
    const shared = this.shared;
    addUsage(shared.usage, usage);
    const { maxTokens, maxModelCalls } = shared.limits;
    if (maxTokens !== undefined && shared.usage.totalTokens > maxTokens) {
      shared.abort(
        new AgentError(
          `the invocation used ${shared.usage.totalTokens} tokens, over its limit of ${maxTokens}`,
          'MAX_TOKENS_EXCEEDED',
          {
            context: {
              agent: this.agent.name,
              scope: 'invocation',
              limit: maxTokens,
              used: shared.usage.totalTokens,
            },
          },
        ),
      );
    } else if (maxModelCalls !== undefined && shared.usage.iterations > maxModelCalls) {
      shared.abort(
        new AgentError(
          `the invocation made more than ${maxModelCalls} model calls`,
          'MAX_ITERATIONS_EXCEEDED',
          {
            context: { agent: this.agent.name, scope: 'invocation', limit: maxModelCalls },
          },
        ),
      );
    }
  }
}

// Made outside the class: a class that names itself in its own body is bundled as a class
// expression with an inner name (`class _InvocationContext`), which becomes its `name`.
function contextOf(...args: ConstructorParameters<typeof InvocationContext>): InvocationContext {
  return new InvocationContext(...args);
}
