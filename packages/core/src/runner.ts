import type { Agent } from './agent.js';
import type {
  AgentResult,
  ApprovalDecision,
  ExecutedToolCall,
  InvocationCheckpoint,
  RunOptions,
} from './agent-config.js';
import { newId } from './new-id.js';

export type { InvocationCheckpoint } from './agent-config.js';

import { findAgent, linkTree, listAgents } from './agent-tree.js';
import {
  AgentError,
  DamagedSessionError,
  PausedSessionError,
  runError,
  toAgentError,
  UsageError,
} from './errors.js';
import type { AgentEvent, PendingApproval } from './events.js';
import { historyFor } from './invocation/history.js';
import { InvocationContext, type InvocationLimits } from './invocation/invocation-context.js';
import { closeOrphanedChildren } from './invocation/orphaned-children.js';
import { type HeldSession, holdSession } from './invocation/session-lease.js';
import { SessionWriter } from './invocation/session-writer.js';
import { SharedInvocation } from './invocation/shared-invocation.js';
import { upgradeVia } from './invocation/upgrade-via.js';
import { validateDecisions } from './invocation/validate-decisions.js';
import { waitingParent } from './invocation/waiting-parent.js';
import { WaitingAbortController } from './loop/abortable.js';
import { AgentRun } from './loop/agent-run.js';
import { EventChannel } from './loop/event-channel.js';
import { keptShapes } from './loop/kept-shapes.js';
import { forwardAbort } from './loop/linked-signal.js';
import { NO_DECISIONS } from './loop/loop-context.js';
import type { Message, ToolCall } from './messages.js';
import { childCallsProblem, promisedCallsProblem } from './promised-calls.js';
import { observingRuns } from './run-observer.js';
import { InMemorySessionStore, type Session, type SessionStore } from './session.js';
import { type Deadline, deadline } from './timing/deadline.js';
import { addUsage, emptyUsage, type UsageStats } from './usage.js';

/** Options of {@link Runner.run}. */
export interface InvocationOptions {
  input: string;
  /** Continue this session; a new one is created when it does not exist. */
  sessionId?: string;
  /**
   * Id of the new invocation (default: a random one). A queued run passes its run id, so whoever
   * picks the job up again finds the run's events in the session by it.
   */
  invocationId?: string;
  /** Milliseconds to wait for a session busy with another invocation; default 0: fail at once. */
  wait?: number;
  userId?: string;
  signal?: AbortSignal;
  /** Milliseconds for the whole invocation. */
  timeout?: number;
  limits?: InvocationLimits;
  onApproval?: RunOptions['onApproval'];
  onEvent?: (event: AgentEvent) => void;
  /** For agent tools: the branch the child's events are tagged under. */
  branchPrefix?: string;
  /** For agent tools: the parent session and call that started this one. */
  parent?: { sessionId: string; callId: string };
  /** For agent tools: the path of the agent that called this one, root first; errors' paths start with it. */
  callerPath?: readonly string[];
  /** The conversation before this message (written to the session first), such as what memory kept. */
  history?: readonly Message[] | Promise<readonly Message[]>;
  /** The state a new session starts with. */
  state?: Record<string, unknown>;
  /** Model settings, limits and callbacks for the agents of this invocation (what `agent.run` takes). */
  agentOptions?: RunOptions;
}

/** Options of {@link Runner.resume}. */
export interface ResumeOptions extends Omit<InvocationOptions, 'input' | 'sessionId'> {
  sessionId: string;
  decisions: readonly ApprovalDecision[];
}

/** What an invocation produced. */
export interface InvocationResult {
  status: 'complete' | 'paused';
  /** The final answer of the last agent that answered. */
  output: string;
  sessionId: string;
  invocationId: string;
  usage: UsageStats;
  state: Record<string, unknown>;
  pending?: PendingApproval[];
  duration: number;
  /** The conversation the starting agent sees, this invocation included. */
  messages: Message[];
  /** The tool calls executed in this invocation, with their results. */
  toolCalls: ExecutedToolCall[];
  /** The final answer as parsed by the output schema of the agent that gave it (else the text). */
  value: unknown;
}

/** Options of a {@link Runner}. */
export interface RunnerOptions {
  agent: Agent;
  /** Where sessions live. Default: in memory. */
  store?: SessionStore;
  /** How long a session's lease lasts unless renewed (renewed every third of it). Default 30 s. */
  leaseTtlMs?: number;
  /**
   * Writes the session's events to the store before each step's tools run, and before an agent's
   * first model call (default: they are written as the event loop's turn ends): a process that
   * dies inside a tool or that first call (killed, out of memory, a tool's `process.exit`, a
   * middleware that never yields) keeps the prompt, the model's calls and what came before them.
   */
  writeBeforeTools?: boolean;
}

/**
 * Runs invocations of an agent tree against sessions: each starts with a user message and ends
 * with a final answer (or a pause), and every event is stored in the session's log.
 */
export class Runner {
  readonly agent: Agent;
  readonly store: SessionStore;
  readonly #leaseTtlMs: number | undefined;
  readonly #writeBeforeTools: boolean;
  readonly #parallel: ReadonlySet<string>;

  constructor(options: RunnerOptions) {
    this.agent = options.agent;
    this.store = options.store ?? new InMemorySessionStore();
    this.#leaseTtlMs = options.leaseTtlMs;
    this.#writeBeforeTools = options.writeBeforeTools ?? false;
    this.#parallel = parallelAgentsOf(this.agent);
  }

  /** Starts an invocation with a user message. */
  run(options: InvocationOptions): AgentRun<string> & { readonly invocation: Promise<InvocationResult> } {
    return this.#start(options, undefined);
  }

  /** Continues a paused session with decisions for its pending calls. */
  resume(options: ResumeOptions): AgentRun<string> & { readonly invocation: Promise<InvocationResult> } {
    return this.#start({ ...options, input: '' }, options.decisions);
  }

  #start(options: InvocationOptions, decisions: readonly ApprovalDecision[] | undefined) {
    const channel = new EventChannel<AgentEvent>();
    const controller = new WaitingAbortController();
    const invocation = this.#execute(options, decisions, channel, controller);
    const run = new AgentRun<string>(
      channel,
      invocation.then(agentResult),
      controller,
    ) as AgentRun<string> & {
      invocation: Promise<InvocationResult>;
    };
    Object.defineProperty(run, 'invocation', { value: invocation });
    keptShapes.runner = this;
    keptShapes.run = run;
    return run;
  }

  // One invocation at a time per session: the lease is held from before the session is read (or
  // created) until the last event is stored, on every exit path. One async function for the whole
  // invocation: each run in flight keeps every suspended frame of its stack alive (a generator, its
  // registers, the await's closures), and a thousand runs in flight keep a thousand of each.
  async #execute(
    options: InvocationOptions,
    decisions: readonly ApprovalDecision[] | undefined,
    channel: EventChannel<AgentEvent>,
    controller: AbortController,
  ): Promise<InvocationResult> {
    const sessionId = options.sessionId ?? newId();
    const freshId = options.invocationId ?? newId();
    let held: HeldSession | undefined;
    // Let go of (also when the invocation fails before its loop starts, a refused checkpoint write).
    let limit: Deadline | undefined;
    let unlink: (() => void) | undefined;
    try {
      held = await holdSession(this.store, sessionId, {
        holder: decisions
          ? `a resume of agent ${this.agent.name}`
          : `invocation ${freshId} of agent ${this.agent.name}`,
        wait: options.wait,
        ttlMs: this.#leaseTtlMs,
        signal: options.signal,
        onLost: (error) => controller.abort(error),
      });
      const started = performance.now();
      const history = options.history === undefined ? undefined : await options.history;
      const session = await this.#session(options, sessionId, decisions !== undefined);
      const checkpoint = session.checkpoint as InvocationCheckpoint | undefined;
      // A resume given no user goes on for the user the run paused for: without, the `user:` keys
      // it writes (a parallel fan-out's merge, the memory tool) would be the session's alone.
      await this.#loadScopedState(session, userOf(options, checkpoint));
      if (checkpoint && session.parentId !== undefined && options.parent?.sessionId !== session.parentId)
        await refuseInsideParent(this.store, session, checkpoint);
      // The child sessions (of agent tools) this resume is to go on with: any it leaves behind are ended.
      let waitingChildren: Session[] = [];
      if (decisions) {
        validateDecisions(session, checkpoint, decisions, this.agent);
        waitingChildren = await this.#checkPromisedCalls(session, checkpoint as InvocationCheckpoint);
        upgradeVia(session, checkpoint as InvocationCheckpoint, waitingChildren);
      } else if (checkpoint) {
        throw new PausedSessionError(
          session.id,
          checkpoint.pending.map((p) => p.call.id),
          // A prompt for another agent than the one paused: the resume must name that one.
          findAgent(this.agent, checkpoint.agent) ? this.agent.name : (session.agent ?? checkpoint.agent),
        );
      }
      limit = deadline(
        options.signal,
        options.timeout,
        () => new AgentError(`the invocation timed out after ${options.timeout} ms`, 'TIMEOUT'),
      );
      // The controller is the invocation's own (its limits, the caller's `abort()`); a caller's
      // signal or a timeout aborts it too, until the invocation ends. Not `AbortSignal.any`: Node 20
      // keeps such a signal alive for good once a wait listens on it, one per run of a server.
      unlink =
        options.signal || options.timeout !== undefined ? forwardAbort(limit.signal, controller) : undefined;
      const signal = controller.signal;
      const invocationId = checkpoint?.invocationId ?? freshId;
      const shared = this.#shared(
        session,
        options,
        invocationId,
        signal,
        controller,
        channel,
        checkpoint,
        decisions,
        held,
      );
      const start =
        (checkpoint && findAgent(this.agent, checkpoint.agent)) || activeAgent(this.agent, session);
      const branch = branchFor(start, options.branchPrefix);
      const ctx = new InvocationContext(shared, start, branch);
      if (checkpoint) {
        await held.write((fence) => this.store.setCheckpoint(session.id, undefined, fence));
      }
      try {
        ctx.emit(
          'run_start',
          shared.userId === undefined
            ? { input: shared.input }
            : { input: shared.input, userId: shared.userId },
        );
        if (!checkpoint) {
          // The user's message sits on the root's branch, so every agent of the tree sees it.
          const root = new InvocationContext(shared, this.agent, branchFor(this.agent, options.branchPrefix));
          for (const message of history ?? []) {
            root.emit('message', { message }, undefined, message.role === 'user' ? 'user' : this.agent.name);
          }
          root.emit('message', { message: { role: 'user', content: options.input } }, undefined, 'user');
        }
        try {
          await start.runInvocation(ctx);
        } catch (thrown) {
          throw ctx.locate(thrown);
        }
        if (signal.aborted) throw signal.reason;
        const output = lastOutput(session, invocationId);
        const duration = performance.now() - started;
        const paused = shared.pending.length > 0;
        if (waitingChildren.length > 0) {
          await closeOrphanedChildren(this.store, waitingChildren, { session, invocationId, paused }, (e) =>
            shared.sink(e),
          );
        }
        if (paused) {
          ctx.emit('approval_required', { pending: shared.pending });
          const saved: InvocationCheckpoint = {
            version: 1,
            invocationId,
            input: shared.input,
            agent: start.name,
            pending: shared.pending,
            attempts: shared.attempt + 1,
          };
          if (shared.userId !== undefined) saved.userId = shared.userId;
          await shared.flush();
          await held.write((fence) => this.store.setCheckpoint(session.id, saved, fence));
        }
        // The run ends once its end is stored: a write refused now (a lease lost at the last
        // moment, a full disk) makes it an error, and no one was told it completed.
        const end = ctx.stage('run_end', {
          status: paused ? 'paused' : 'complete',
          output,
          usage: { ...shared.usage },
          duration,
        });
        try {
          await shared.flush();
        } catch (error) {
          ctx.unstage(end);
          throw error;
        }
        ctx.deliver(end);
        return {
          status: paused ? 'paused' : 'complete',
          output,
          sessionId: session.id,
          invocationId,
          usage: { ...shared.usage },
          state: { ...session.state },
          pending: paused ? shared.pending : undefined,
          duration,
          messages: historyFor(session.events, branch, this.#parallel),
          toolCalls: shared.toolCalls,
          value: shared.value ?? output,
        };
      } catch (thrown) {
        // An abort's reason says why (a limit, a lost lease, the caller) better than the error it caused.
        const error = signal.aborted ? toAgentError(signal.reason, 'ABORTED') : runError(thrown);
        const output = lastOutput(session, invocationId);
        const messages = historyFor(session.events, branch, this.#parallel);
        error.result = agentResult({
          status: 'complete',
          output: output || lastText(messages),
          sessionId: session.id,
          invocationId,
          usage: { ...shared.usage },
          state: { ...session.state },
          duration: performance.now() - started,
          messages,
          toolCalls: shared.toolCalls,
          value: output || lastText(messages),
        });
        shared.ending();
        // A failed resume has cleared the pause: the children it was to go on with can never be
        // resumed. Unless the session is another's now (its lease lost): that one decides.
        if (waitingChildren.length > 0 && (await stillHeld(held)))
          await closeOrphanedChildren(
            this.store,
            waitingChildren,
            { session, invocationId, paused: false, error },
            (e) => shared.sink(e),
          ).catch(() => undefined);
        ctx.emit('error', {
          code: error.code,
          message: error.message,
          context: { ...error.context, blame: error.blame, retryable: error.retryable },
          ...(error.agentPath && { agentPath: error.agentPath }),
        });
        ctx.emit('run_end', {
          status: 'error',
          output: lastOutput(session, invocationId),
          usage: { ...shared.usage },
          duration: performance.now() - started,
        });
        await shared.flush().catch(() => undefined);
        throw error;
      }
    } finally {
      unlink?.();
      limit?.dispose();
      try {
        await held?.release();
      } finally {
        // Every event is out (a failure before the first one, such as an unknown session, included).
        channel.close();
      }
    }
  }

  // `app:` and `user:` keys come from the store's shared scopes, so every session sees their latest
  // values. A run without a user keeps the `user:` keys the session's runs without one wrote: they
  // are the session's own (the memory tool's notes last the session), not any user's.
  async #loadScopedState(session: Session, userId: string | undefined): Promise<void> {
    if (!this.store.getScopedState) return;
    const own = userId === undefined ? keysOfRunsWithoutUser(session) : undefined;
    for (const key of Object.keys(session.state)) {
      if (key.startsWith('app:') || key.startsWith('user:')) delete session.state[key];
    }
    Object.assign(session.state, await this.store.getScopedState('app'));
    if (userId) Object.assign(session.state, await this.store.getScopedState(`user:${userId}`));
    else if (own) Object.assign(session.state, own);
  }

  // What a person decides on must be what runs: a session changed outside agentctl is refused
  // before any decision is applied (or anything written).
  // Returns the paused child sessions the checkpoint's calls wait in.
  async #checkPromisedCalls(session: Session, checkpoint: InvocationCheckpoint): Promise<Session[]> {
    let problem = promisedCallsProblem(session, checkpoint, (name) =>
      findAgent(this.agent, name)?.callRecording?.(),
    );
    let children: Session[] = [];
    if (!problem && checkpoint.pending.some((p) => p.via)) {
      const listed = await this.store.list({ parentId: session.id });
      const read = await Promise.all(listed.filter((c) => c.paused).map((c) => this.store.get(c.id)));
      children = read.filter((c): c is Session => c !== undefined);
      problem = childCallsProblem(checkpoint.pending, children);
    }
    if (problem) throw new DamagedSessionError(session.id, problem);
    return children;
  }

  async #session(options: InvocationOptions, sessionId: string, resuming: boolean): Promise<Session> {
    if (options.sessionId) {
      const existing = await this.store.get(sessionId);
      if (existing) return existing;
      if (resuming) throw new UsageError(`no session with id ${sessionId}`);
    }
    return this.store.create({
      id: sessionId,
      agent: this.agent.name,
      state: options.state,
      parentId: options.parent?.sessionId,
      parentCallId: options.parent?.callId,
    });
  }

  #shared(
    session: Session,
    options: InvocationOptions,
    invocationId: string,
    signal: AbortSignal,
    controller: AbortController,
    channel: EventChannel<AgentEvent>,
    checkpoint: InvocationCheckpoint | undefined,
    decisions: readonly ApprovalDecision[] | undefined,
    held: HeldSession,
  ): SharedInvocation {
    const store = this.store;
    const usage = emptyUsage();
    const replay = checkpoint ? new Map<string, number>() : NOTHING_TO_REPLAY;
    const toolCalls: ExecutedToolCall[] = [];
    if (checkpoint) {
      const calls = new Map<string, ToolCall>();
      for (const event of session.events) {
        if (event.invocationId !== invocationId) continue;
        if (event.type === 'usage') addUsage(usage, event.usage);
        if (event.type === 'tool_call') calls.set(event.call.id, event.call);
        if (event.type === 'tool_result') {
          const call = calls.get(event.callId);
          toolCalls.push({
            id: event.callId,
            name: event.name,
            arguments: call?.arguments ?? {},
            result: event.content,
            isError: event.isError,
            duration: event.duration,
          });
        }
        if (event.type === 'agent_end') replay.set(event.branch, (replay.get(event.branch) ?? 0) + 1);
      }
    }
    return new SharedInvocation(
      {
        invocationId,
        attempt: checkpoint?.attempts ?? 0,
        session,
        store,
        root: this.agent,
        input: checkpoint?.input ?? options.input,
        userId: userOf(options, checkpoint),
        signal,
        usage,
        limits: options.limits ?? NO_LIMITS,
        decisions: decisions?.length ? new Map(decisions.map((d) => [d.callId, d])) : NO_DECISIONS,
        resumePending: checkpoint?.pending ?? [],
        replay,
        parallel: this.#parallel,
        options: agentOptionsOf(options),
        toolCalls,
        observed: observingRuns()
          ? { invocationId, sessionId: session.id, agent: this.agent, parent: options.parent }
          : undefined,
        writeBeforeTools: this.#writeBeforeTools,
        callerPath: options.callerPath ?? NO_PATH,
      },
      channel,
      options.onEvent,
      // A holder that lapsed (paused past its lease, which another process then took) writes nothing.
      new SessionWriter(store, session.id, held),
      controller,
    );
  }
}

const NO_LIMITS: InvocationLimits = Object.freeze({});
const NO_PATH: readonly string[] = Object.freeze([]);
// A fresh invocation replays nothing: the map is only read (its size, a count of 0).
const NOTHING_TO_REPLAY = new Map<string, number>();
const NO_OPTIONS: RunOptions = Object.freeze({});

// The agents' options: `agentOptions` as given, with the invocation's own approval callback first.
function agentOptionsOf(options: InvocationOptions): RunOptions {
  const given = options.agentOptions ?? NO_OPTIONS;
  if (options.onApproval === undefined || options.onApproval === given.onApproval) return given;
  return { ...given, onApproval: options.onApproval };
}

// A server makes a runner per request: the tree is linked and searched once per root agent.
const parallelOf = new WeakMap<Agent, ReadonlySet<string>>();

function parallelAgentsOf(root: Agent): ReadonlySet<string> {
  let names = parallelOf.get(root);
  if (names) return names;
  if (!root.parent) linkTree(root);
  names = new Set(
    listAgents(root)
      .filter((a) => a.type === 'parallel')
      .map((a) => a.name),
  );
  parallelOf.set(root, names);
  return names;
}

// The result as `agent.run` gives it: the parsed answer as `output`, its text as `text`.
function agentResult(r: InvocationResult): AgentResult<string> {
  return {
    status: r.status,
    output: r.value as string,
    text: r.output,
    messages: r.messages,
    toolCalls: r.toolCalls,
    usage: r.usage,
    duration: r.duration,
    pending: r.pending,
  };
}

// A child session paused inside its parent's pause is decided through the parent, not on its own.
async function refuseInsideParent(
  store: SessionStore,
  session: Session,
  checkpoint: InvocationCheckpoint,
): Promise<void> {
  const top = await waitingParent(store, session);
  if (!top) return;
  const calls = checkpoint.pending.map((p) => p.call.id).join(', ');
  throw new UsageError(
    `session ${session.id} is paused inside session ${top.id}${top.agent ? ` (agent ${top.agent})` : ''}, which waits on it through an agent tool: decide ${calls} by resuming session ${top.id}${top.agent ? ` with agent ${top.agent}` : ''}; resumed on its own, it would leave session ${top.id} waiting for good`,
  );
}

function stillHeld(held: HeldSession): Promise<boolean> {
  return Promise.resolve(held.confirm()).then(
    () => true,
    () => false,
  );
}

function lastText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'assistant' && messages[i].content) return messages[i].content ?? '';
  }
  return '';
}

// The agent that answers the next user message: the last transfer target of the session, or the root.
function activeAgent(root: Agent, session: Session): Agent {
  for (let i = session.events.length - 1; i >= 0; i--) {
    const event = session.events[i];
    if (event.type === 'transfer') return findAgent(root, event.to) ?? root;
  }
  return root;
}

function branchFor(agent: Agent, prefix: string | undefined): string {
  // A root's path is its name (the common case, without building a list of names per run).
  let own = agent.name;
  for (let current = agent.parent; current; current = current.parent) own = `${current.name}.${own}`;
  return prefix ? `${prefix}.${own}` : own;
}

function lastOutput(session: Session, invocationId: string): string {
  for (let i = session.events.length - 1; i >= 0; i--) {
    const event = session.events[i];
    if (event.invocationId !== invocationId) break;
    if (event.type === 'agent_end' && event.output) return event.output;
  }
  return '';
}

// The `user:` keys of a session as its runs without a user left them (a run with a user wrote its
// user's keys, which the session does not keep); undefined when the session holds none.
function keysOfRunsWithoutUser(session: Session): Record<string, unknown> | undefined {
  if (!Object.keys(session.state).some((key) => key.startsWith('user:'))) return undefined;
  const own: Record<string, unknown> = {};
  let withoutUser = true;
  for (const event of session.events) {
    if (event.type === 'run_start') withoutUser = event.userId === undefined;
    if (!withoutUser || !event.stateDelta) continue;
    for (const [key, value] of Object.entries(event.stateDelta)) {
      if (!key.startsWith('user:')) continue;
      if (value === null) delete own[key];
      else own[key] = value;
    }
  }
  return own;
}

// The user a run is for: the one it was given, else (resumed) the one it paused for. An empty id
// is no user, as it is for the shared scopes.
function userOf(
  options: InvocationOptions,
  checkpoint: InvocationCheckpoint | undefined,
): string | undefined {
  return options.userId || checkpoint?.userId || undefined;
}
