import {
  type Agent,
  type AgentEvent,
  type ApprovalDecision,
  findAgent,
  type InvocationCheckpoint,
  LlmAgent,
  type PendingApproval,
  type Session,
  type ToolCall,
} from '@agentctl/core';

/** What the model reads for a call that started but whose result was lost with its worker. */
export const INTERRUPTED_RESULT =
  '[interrupted] The tool call started, but the worker running it stopped before it returned a result; whether it took effect is unknown.';

/** What a worker does with a job, given the session as the store holds it now. */
export type RunPlan =
  /** Nothing of this run is in the session yet: start it. */
  | { kind: 'start' }
  /** The run ended already (its worker stopped before the queue heard): report how. */
  | { kind: 'done'; end: Extract<AgentEvent, { type: 'run_end' }>; events: AgentEvent[] }
  /** The run was interrupted: continue it from the session with these decisions. */
  | {
      kind: 'recover';
      checkpoint: InvocationCheckpoint;
      decisions: ApprovalDecision[];
      events: AgentEvent[];
    };

/**
 * Reads a session for the events of one run: invocation `invocationId` from attempt `fromAttempt`
 * on (a fresh run is attempt 0 on; a resume starts at the checkpoint's attempt count).
 */
export function planRun(
  session: Session | undefined,
  invocationId: string,
  fromAttempt: number,
  root: Agent,
): RunPlan {
  const all = (session?.events ?? []).filter((e) => e.invocationId === invocationId);
  const events = all.filter((e) => attemptOf(e) >= fromAttempt);
  if (events.length === 0) return { kind: 'start' };
  const latest = Math.max(...events.map(attemptOf));
  const end = events.find(
    (e): e is Extract<AgentEvent, { type: 'run_end' }> => e.type === 'run_end' && attemptOf(e) === latest,
  );
  if (end) return { kind: 'done', end, events };
  return { kind: 'recover', ...recovery(all, invocationId, latest, root), events };
}

/** The attempt an event was emitted in: its id is `<invocationId>.<attempt>.<seq>`. */
export function attemptOf(event: AgentEvent): number {
  const rest = event.id.slice(event.invocationId.length + 1);
  const n = Number.parseInt(rest, 10);
  return Number.isFinite(n) ? n : 0;
}

// The checkpoint of an interrupted invocation, as if it had paused on every call left without a
// result: a call whose result was recorded gets that result, an idempotent tool runs again, and
// any other call is answered as interrupted. So is an idempotent call the session records
// redacted: its arguments as made were lost with the worker, and it must not run with others.
function recovery(
  events: readonly AgentEvent[],
  invocationId: string,
  latest: number,
  root: Agent,
): { checkpoint: InvocationCheckpoint; decisions: ApprovalDecision[] } {
  const start = events.find((e) => e.type === 'run_start');
  const firstAgent = events.find((e) => e.type === 'agent_start');
  const results = new Map<string, string>();
  for (const e of events) if (e.type === 'tool_result') results.set(e.callId, e.content);
  const pending: PendingApproval[] = [];
  const decisions: ApprovalDecision[] = [];
  for (const { call, event } of unansweredCalls(events)) {
    const branch = event.branch;
    const result = results.get(call.id);
    const idempotent = toolOf(root, event.author, call.name)?.idempotent === true;
    if (result === undefined && idempotent && !call.argumentsRedacted) {
      pending.push({ call, agent: event.author, kind: 'approval', branch, reason: 'interrupted' });
      decisions.push({ callId: call.id, approve: true });
    } else {
      pending.push({ call, agent: event.author, kind: 'input', branch, reason: 'interrupted' });
      decisions.push({ callId: call.id, approve: true, input: result ?? INTERRUPTED_RESULT });
    }
  }
  return {
    checkpoint: {
      version: 1,
      invocationId,
      input: start?.type === 'run_start' ? start.input : '',
      agent: firstAgent?.type === 'agent_start' ? firstAgent.agent : root.name,
      pending,
      attempts: latest + 1,
      ...(start?.type === 'run_start' && start.userId !== undefined ? { userId: start.userId } : {}),
    },
    decisions,
  };
}

// Per branch, the calls of the last assistant message that no tool message answers.
function unansweredCalls(events: readonly AgentEvent[]): { call: ToolCall; event: AgentEvent }[] {
  const open = new Map<string, { event: AgentEvent; calls: ToolCall[] }>();
  for (const e of events) {
    if (e.type !== 'message') continue;
    const m = e.message;
    if (m.role === 'assistant') open.set(e.branch, { event: e, calls: [...(m.toolCalls ?? [])] });
    else if (m.role === 'tool') {
      const entry = open.get(e.branch);
      if (entry) entry.calls = entry.calls.filter((c) => c.id !== m.toolCallId);
    }
  }
  return [...open.values()].flatMap(({ event, calls }) => calls.map((call) => ({ call, event })));
}

function toolOf(root: Agent, agentName: string, tool: string) {
  const agent = findAgent(root, agentName);
  return agent instanceof LlmAgent ? agent.tools.get(tool) : undefined;
}
