import { randomUUID } from 'node:crypto';
import {
  type AgentEvent,
  type ApprovalDecision,
  InMemorySessionStore,
  type InvocationResult,
  isAgentError,
  type LinkedSignal,
  linkedSignal,
  type Message,
  Runner,
  type Session,
  type SessionStore,
  waitingParent,
} from '@agentctl/core';
import type { AgentSource } from './agent-source.js';
import type { StreamLimit } from './bounded-stream.js';
import type { ErrorShield } from './error-shield.js';
import { HttpError } from './http-error.js';
import type { PublicAddress } from './public-address.js';
import type { QueuedRuns } from './queued-runs.js';
import type { RunTracker } from './run-tracker.js';
import { toHttpError } from './to-http-error.js';

/** What every protocol needs to start a run. */
export interface InvokeContext {
  source: AgentSource;
  tracker: RunTracker;
  /** Milliseconds a run may take before it ends as TIMEOUT. */
  runTimeoutMs: number;
  /** Where `async: true` runs go; without it they are refused. */
  queue?: QueuedRuns;
  /** What clients read of failures: the operator's texts stay in the log (see {@link ErrorShield}). */
  shield: ErrorShield;
  /** How much a streamed answer may hold for a client that does not read. */
  streamLimit: StreamLimit;
  /** The address clients reach the server at, for the addresses it hands out; none: the request's own. */
  address?: PublicAddress;
}

/** One run to start: a new user message, or decisions for a paused session. */
export interface InvokeRequest {
  agent: string;
  sessionId?: string;
  userId?: string;
  input?: string;
  decisions?: ApprovalDecision[];
  /** Earlier turns to seed a new in-memory session with (the OpenAI endpoint without a session). */
  history?: Pick<Message, 'role' | 'content'>[];
  /** Aborts the run (an A2A cancel). */
  signal?: AbortSignal;
}

/** A run that has started: its events (the first already read) and its result. */
export interface StartedRun {
  sessionId: string;
  /** The root agent that runs. */
  agent: string;
  events: AsyncIterable<AgentEvent>;
  /** Settles when the run ends; rejects with an AgentError when it failed (its text shielded). */
  result: Promise<InvocationResult>;
}

/**
 * Starts a run through the one executor (`Runner`), holding the agent's generation and a run slot
 * until it ends. Failures before the first event (unknown agent, busy or paused session, a
 * decision for a call that is not pending) throw an {@link HttpError}, so no stream has begun.
 */
export async function invoke(context: InvokeContext, request: InvokeRequest): Promise<StartedRun> {
  const lease = context.source.lease(request.agent);
  if (!lease) throw new HttpError(404, 'unknown_agent', `no agent named "${request.agent}"`);
  const sessionId = request.sessionId ?? randomUUID();
  let ticket: ReturnType<RunTracker['begin']>;
  try {
    ticket = context.tracker.begin(sessionId);
  } catch (error) {
    lease.release();
    throw error;
  }
  let linked: LinkedSignal | undefined;
  const end = () => {
    linked?.dispose();
    ticket.end();
    lease.release();
  };
  try {
    const store = request.history
      ? await seededStore(lease.agent.name, sessionId, request.history)
      : lease.store;
    await checkSession(store, sessionId, request);
    const runner = new Runner({ agent: lease.agent, store, writeBeforeTools: true });
    // Not `AbortSignal.any`: Node 20 keeps its signal alive for good once the run's waits listen
    // on it, one per run for the server's life.
    if (request.signal) linked = linkedSignal([request.signal, ticket.signal]);
    const signal = linked?.signal ?? ticket.signal;
    const common = { sessionId, userId: request.userId, signal, timeout: context.runTimeoutMs };
    const run = request.decisions
      ? runner.resume({ ...common, decisions: request.decisions })
      : runner.run({ ...common, input: request.input ?? '' });
    const result = run.invocation;
    result.then(end, end);
    const iterator = run[Symbol.asyncIterator]();
    const first = await iterator.next();
    if (first.done) await result;
    // Every protocol reads the run through here: what it sends a client is shielded once, and an
    // error event and the failure it ends the run with share one ref.
    let errorEvent: string | undefined;
    const events = shielded(replayFirst(first, iterator), (event) => {
      if (event.type === 'error') errorEvent = event.id;
      return context.shield.event(event, sessionId);
    });
    const shieldedResult = result.catch((error: unknown) =>
      Promise.reject(context.shield.error(error, { key: errorEvent, sessionId })),
    );
    // A rejection nobody awaits yet (its events are still being read) is not unhandled.
    shieldedResult.catch(() => undefined);
    return { sessionId, agent: lease.agent.name, result: shieldedResult, events };
  } catch (error) {
    end();
    throw shieldedHttpError(context.shield, error);
  }
}

/**
 * What a failure before a run's first event (or outside any run) is answered with: a caller's
 * mistake in its own words, the server's own failures as their code and a ref, their text logged.
 */
export function shieldedHttpError(shield: ErrorShield, error: unknown): HttpError {
  const answer = toHttpError(error);
  if (answer.status < 500 || answer === error) return answer;
  if (answer.code === 'store_unavailable') {
    const ref = shield.internal(error, 'store unavailable');
    return new HttpError(answer.status, answer.code, `${answer.message} (ref ${ref})`, answer.headers);
  }
  if (isAgentError(error)) {
    const shown = shield.message(error.code, error.message, {}, error.blame);
    return shown === error.message ? answer : new HttpError(answer.status, answer.code, shown);
  }
  return new HttpError(answer.status, answer.code, `internal error (ref ${shield.internal(error)})`);
}

async function* shielded(
  events: AsyncIterable<AgentEvent>,
  shield: (event: AgentEvent) => AgentEvent,
): AsyncGenerator<AgentEvent> {
  for await (const event of events) yield shield(event);
}

// A paused session takes decisions, not a message; decisions need a paused session.
/** Refuses a message for a paused session, or decisions for one that is not paused. */
export async function checkSession(store: SessionStore, id: string, request: InvokeRequest): Promise<void> {
  if (!request.decisions) {
    const existing = await store.get(id);
    if (existing) await refuseInsideParent(store, existing);
    if (existing?.checkpoint !== undefined) {
      throw new HttpError(
        409,
        'session_paused',
        `session ${id} is paused waiting for a decision; POST /sessions/${id}/decisions`,
      );
    }
    return;
  }
  const session = await store.get(id);
  if (!session) throw new HttpError(404, 'unknown_session', `no session with id ${id}`);
  if (session.checkpoint === undefined)
    throw new HttpError(409, 'session_not_paused', `session ${id} is not waiting for a decision`);
  await refuseInsideParent(store, session);
}

/**
 * Refuses a paused child session (an agent tool's) whose parent's pause goes through it: its calls
 * are decided on that parent, and run, removed or prompted on its own it would leave the parent
 * waiting for good.
 */
export async function refuseInsideParent(store: SessionStore, session: Session): Promise<void> {
  if (session.checkpoint === undefined) return;
  const top = await waitingParent(store, session);
  if (!top) return;
  throw new HttpError(
    409,
    'session_inside_parent',
    `session ${session.id} is paused inside session ${top.id}, which waits on it through an agent tool; POST /sessions/${top.id}/decisions`,
  );
}

async function* replayFirst(
  first: IteratorResult<AgentEvent>,
  rest: AsyncIterator<AgentEvent>,
): AsyncGenerator<AgentEvent> {
  if (first.done) return;
  yield first.value;
  while (true) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

// A stateless chat request carries its own history: it lives in memory for this run only.
async function seededStore(
  agent: string,
  sessionId: string,
  history: Pick<Message, 'role' | 'content'>[],
): Promise<SessionStore> {
  const store = new InMemorySessionStore();
  await store.create({ id: sessionId, agent });
  const invocationId = randomUUID();
  const events = history.map(
    (message, i): AgentEvent => ({
      type: 'message',
      id: `${invocationId}-${i}`,
      invocationId,
      branch: agent,
      author: message.role === 'user' ? 'user' : agent,
      time: Date.now(),
      message: { role: message.role, content: message.content },
    }),
  );
  await store.append(sessionId, events);
  return store;
}
