import type { Agent } from '../agent.js';
import type { ApprovalDecision, ExecutedToolCall, RunOptions } from '../agent-config.js';
import type { AgentEvent, PendingApproval } from '../events.js';
import type { EventChannel } from '../loop/event-channel.js';
import type { ObservedInvocation } from '../run-observer.js';
import type { Session, SessionStore } from '../session.js';
import type { UsageStats } from '../usage.js';
import type { InvocationLimits, InvocationShared } from './invocation-context.js';
import type { SessionWriter } from './session-writer.js';

/** What a runner knows when it starts an invocation; the rest of {@link SharedInvocation} starts empty. */
export type SharedInvocationInit = Pick<
  InvocationShared,
  | 'invocationId'
  | 'attempt'
  | 'session'
  | 'store'
  | 'root'
  | 'input'
  | 'userId'
  | 'signal'
  | 'usage'
  | 'limits'
  | 'decisions'
  | 'resumePending'
  | 'replay'
  | 'parallel'
  | 'options'
  | 'toolCalls'
  | 'observed'
  | 'writeBeforeTools'
  | 'callerPath'
>;

/**
 * The state every context of one runner invocation shares, and where its events go: the caller's
 * stream and callback, and the session writer. A class rather than an object of closures: each run
 * in flight keeps one for its whole life.
 */
export class SharedInvocation implements InvocationShared {
  readonly invocationId: string;
  readonly attempt: number;
  readonly idPrefix: string;
  seq = 0;
  readonly session: Session;
  readonly store: SessionStore;
  readonly root: Agent;
  readonly input: string;
  readonly userId: string | undefined;
  readonly signal: AbortSignal;
  readonly usage: UsageStats;
  readonly limits: InvocationLimits;
  ended = false;
  readonly temp: Record<string, unknown> = {};
  readonly pending: PendingApproval[] = [];
  readonly decisions: Map<string, ApprovalDecision>;
  readonly resumePending: readonly PendingApproval[];
  readonly replay: Map<string, number>;
  readonly parallel: ReadonlySet<string>;
  readonly options: RunOptions;
  readonly toolCalls: ExecutedToolCall[];
  value: unknown = undefined;
  readonly observed: ObservedInvocation | undefined;
  readonly writeBeforeTools: boolean;
  readonly callerPath: readonly string[];
  readonly #channel: EventChannel<AgentEvent>;
  readonly #onEvent: ((event: AgentEvent) => void) | undefined;
  readonly #writer: SessionWriter;
  readonly #controller: AbortController;
  // The last value of each shared key this invocation wrote or updated, by the order its writes
  // reach the store (an update's value is known only once the store made it, after later writes
  // may have been queued): what the run's view shows for a key `state.update` stored.
  #latest: Map<string, { order: number; value: unknown }> | undefined;
  #order = 0;

  constructor(
    init: SharedInvocationInit,
    channel: EventChannel<AgentEvent>,
    onEvent: ((event: AgentEvent) => void) | undefined,
    writer: SessionWriter,
    controller: AbortController,
  ) {
    this.invocationId = init.invocationId;
    this.attempt = init.attempt;
    this.idPrefix = `${init.invocationId}.${init.attempt}.`;
    this.session = init.session;
    this.store = init.store;
    this.root = init.root;
    this.input = init.input;
    this.userId = init.userId;
    this.signal = init.signal;
    this.usage = init.usage;
    this.limits = init.limits;
    this.decisions = init.decisions;
    this.resumePending = init.resumePending;
    this.replay = init.replay;
    this.parallel = init.parallel;
    this.options = init.options;
    this.toolCalls = init.toolCalls;
    this.observed = init.observed;
    this.writeBeforeTools = init.writeBeforeTools;
    this.callerPath = init.callerPath;
    this.#channel = channel;
    this.#onEvent = onEvent;
    this.#writer = writer;
    this.#controller = controller;
  }

  sink(event: AgentEvent): void {
    this.#channel.push(event);
    this.#onEvent?.(event);
  }

  persist(event: AgentEvent): void {
    this.#writer.event(event);
  }

  persistScoped(delta: Record<string, unknown>): void {
    for (const [scope, part] of scopedParts(delta, this.userId)) {
      for (const [key, value] of Object.entries(part)) this.#wrote(key, ++this.#order, value);
      this.#writer.scoped(scope, part);
    }
  }

  updateShared(key: string, update: (current: unknown) => unknown): Promise<unknown> | undefined {
    const scope = scopeOf(key, this.userId);
    if (!scope || !this.store.updateScopedKey) return undefined;
    const order = ++this.#order;
    return this.#writer.scopedKey(scope, key, update).then((value) => {
      this.#wrote(key, order, value ?? null);
      return value;
    });
  }

  storedValue(key: string, recorded: unknown): unknown {
    const latest = this.#latest?.get(key);
    if (latest) return latest.value;
    const state = this.session.state;
    return key in state ? state[key] : recorded;
  }

  #wrote(key: string, order: number, value: unknown): void {
    this.#latest ??= new Map();
    const latest = this.#latest.get(key);
    if (!latest || latest.order < order) this.#latest.set(key, { order, value });
  }

  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  /** The invocation's end is next: written after what was stored even when a write failed before. */
  ending(): void {
    this.#writer.ending();
  }

  /** Waits for every queued write of the session; throws the first that failed. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }
}

// The scope an `app:`/`user:` key is shared in; `user:` keys need a user id.
function scopeOf(key: string, userId: string | undefined): string | undefined {
  if (key.startsWith('app:')) return 'app';
  return key.startsWith('user:') && userId ? `user:${userId}` : undefined;
}

// Splits `app:`/`user:` keys of a delta by the scope they are shared in.
function scopedParts(
  delta: Record<string, unknown>,
  userId: string | undefined,
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const [key, value] of Object.entries(delta)) {
    const scope = scopeOf(key, userId);
    if (!scope) continue;
    const part = out.get(scope) ?? {};
    part[key] = value;
    out.set(scope, part);
  }
  return out;
}
