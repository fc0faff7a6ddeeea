import type { Agent } from './agent.js';
import type { AgentResult, ApprovalDecision, RunCheckpoint, RunOptions } from './agent-config.js';
import { AgentError, UsageError } from './errors.js';
import type { AgentEvent } from './events.js';
import type { AgentRun } from './loop/agent-run.js';
import type { MemoryProvider } from './memory.js';
import { type InvocationResult, Runner } from './runner.js';
import {
  newSession,
  type Session,
  type SessionInit,
  type SessionStore,
  type SessionSummary,
  summarise,
} from './session.js';
import type { LeaseAttempt, LeaseRequest, SessionLease } from './session-lease.js';

/** A run of one agent outside any session: a {@link Runner} over an in-memory session kept for this run only. */
export function runStandalone<T>(
  agent: Agent,
  input: string,
  options: RunOptions,
  memory: MemoryProvider | undefined,
): AgentRun<T> {
  const runner = new Runner({ agent, store: new RunStore() });
  const key = options.sessionId ?? 'default';
  const history = options.messages ?? memory?.load(key);
  const run = runner.run({
    input,
    history,
    state: options.state,
    signal: options.signal,
    timeout: options.timeout,
    onEvent: options.onEvent,
    agentOptions: options,
  });
  return run.withResult(finish<T>(runner, run.invocation, options, memory, key));
}

/** Continues a paused standalone run from its checkpoint, in a fresh in-memory session. */
export function resumeStandalone<T>(
  agent: Agent,
  checkpoint: RunCheckpoint,
  decisions: readonly ApprovalDecision[],
  options: RunOptions,
  memory: MemoryProvider | undefined,
): AgentRun<T> {
  if (checkpoint.version !== 2)
    throw new UsageError(`unsupported checkpoint version ${String(checkpoint.version)}`);
  if (checkpoint.agent !== agent.name) {
    throw new UsageError(`the checkpoint belongs to agent ${checkpoint.agent}, not ${agent.name}`);
  }
  const pendingIds = new Set(checkpoint.invocation.pending.map((p) => p.call.id));
  for (const decision of decisions) {
    if (!pendingIds.has(decision.callId)) {
      const known = [...pendingIds].join(', ') || 'none';
      throw new UsageError(`no pending tool call has id ${decision.callId} (pending: ${known})`);
    }
  }
  const store = new RunStore();
  const session = newSession({ agent: agent.name, state: structuredClone(checkpoint.state) });
  session.events = structuredClone(checkpoint.events);
  session.checkpoint = checkpoint.invocation;
  store.restore(session);
  const runner = new Runner({ agent, store });
  const run = runner.resume({
    sessionId: session.id,
    decisions,
    signal: options.signal,
    timeout: options.timeout,
    onEvent: options.onEvent,
    agentOptions: options,
  });
  return run.withResult(finish<T>(runner, run.invocation, options, memory, options.sessionId ?? 'default'));
}

// Memory, callbacks and the checkpoint of a pause: what `agent.run` adds around the runner.
async function finish<T>(
  runner: Runner,
  invocation: Promise<InvocationResult>,
  options: RunOptions,
  memory: MemoryProvider | undefined,
  key: string,
): Promise<AgentResult<T>> {
  try {
    const done = await invocation;
    const result: AgentResult<T> = {
      status: done.status,
      output: done.value as T,
      text: done.output,
      messages: done.messages,
      toolCalls: done.toolCalls,
      usage: done.usage,
      duration: done.duration,
    };
    if (done.status === 'paused') {
      const session = await runner.store.get(done.sessionId);
      result.pending = done.pending;
      result.checkpoint = {
        version: 2,
        agent: runner.agent.name,
        invocation: session?.checkpoint as RunCheckpoint['invocation'],
        state: session?.state ?? {},
        events: session?.events ?? [],
      };
    }
    if (!options.skipMemorySave) await memory?.save(key, result.messages);
    options.onComplete?.(result as AgentResult<unknown>);
    return result;
  } catch (error) {
    const partial = error instanceof AgentError ? (error.result as AgentResult | undefined) : undefined;
    if (partial && !options.skipMemorySave) await memory?.save(key, partial.messages).catch(() => undefined);
    options.onError?.(error as Error);
    throw error;
  }
}

/**
 * The sessions of one `agent.run` (its own and its agent tools' child sessions), alive for that run
 * only. The runner already writes every event and state change into the session object it holds;
 * here that object is the stored one, so nothing is copied and an append has nothing left to do.
 */
class RunStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();

  // Nothing else can reach these sessions, and each child session belongs to one tool call: one
  // holder at a time is given, so the lease is a formality that never expires (and is never renewed).
  async lease(id: string, request: LeaseRequest): Promise<LeaseAttempt> {
    return {
      lease: {
        sessionId: id,
        token: id,
        holder: request.holder,
        since: 0,
        expiresAt: Number.POSITIVE_INFINITY,
      },
    };
  }

  async renewLease(lease: SessionLease): Promise<SessionLease> {
    return lease;
  }

  async releaseLease(): Promise<void> {}

  restore(session: Session): void {
    this.#sessions.set(session.id, session);
  }

  async create(init: SessionInit = {}): Promise<Session> {
    const session = newSession(init);
    if (this.#sessions.has(session.id)) throw new Error(`session ${session.id} already exists`);
    this.#sessions.set(session.id, session);
    return session;
  }

  async get(id: string): Promise<Session | undefined> {
    return this.#sessions.get(id);
  }

  async append(id: string, _events: readonly AgentEvent[]): Promise<void> {
    if (!this.#sessions.has(id)) throw new Error(`no session with id ${id}`);
  }

  async setCheckpoint(id: string, checkpoint: unknown): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) throw new Error(`no session with id ${id}`);
    if (checkpoint === undefined) delete session.checkpoint;
    else session.checkpoint = structuredClone(checkpoint);
  }

  async list(filter: { parentId?: string } = {}): Promise<SessionSummary[]> {
    return [...this.#sessions.values()]
      .filter((s) => filter.parentId === undefined || s.parentId === filter.parentId)
      .map(summarise);
  }

  async delete(id: string): Promise<boolean> {
    return this.#sessions.delete(id);
  }
}
