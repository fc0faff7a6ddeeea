import type { AgentErrorCode } from './errors.js';
import type { Message, ToolCall } from './messages.js';
import type { UsageStats } from './usage.js';

/** Fields every event carries. */
export interface EventBase {
  /** Unique id of the event. */
  id: string;
  /** The invocation (one user message to one final answer) this event belongs to. */
  invocationId: string;
  /** Dotted path of agents from the root to the author, such as `triage.billing`. */
  branch: string;
  /** The agent that produced the event, or `user`. */
  author: string;
  /** Milliseconds since the epoch. */
  time: number;
  /** State changes this event carries; the runner applies them to the session. */
  stateDelta?: Record<string, unknown>;
  /**
   * State changes made inside a parallel branch: kept apart and applied only when the parallel
   * agent merges its branches (in declaration order) with one `state_delta` event.
   */
  branchDelta?: Record<string, unknown>;
  /**
   * Keys of this event's delta (or branch delta) whose value `state.update` already stored in its
   * shared scope (`app:`, `user:`): recorded for the session, never written whole to the scope again,
   * so another run's update of the key made meanwhile is kept (a resumed parallel merge included).
   */
  storedKeys?: string[];
}

/** A tool call waiting for a human decision. */
export interface PendingApproval {
  call: ToolCall;
  /** The agent whose tool it is. */
  agent: string;
  /** Why approval is needed, or the question a tool asked. */
  reason?: string;
  /** `approval` waits for approve/deny; `input` waits for an answer to the tool's question. */
  kind?: 'approval' | 'input';
  /** The branch of the agent that paused. */
  branch?: string;
  /** For a call inside an agent tool: the caller's tool call that waits for it. */
  via?: { callId: string; agent: string; branch: string };
}

/** How a run ended. */
export type RunStatus = 'complete' | 'paused' | 'error';

/** The payloads of every event, keyed by type. */
export interface EventPayloads {
  /** `userId`: the user the run is for (`user:` keys are theirs); left out when it has none. */
  run_start: { input: string; userId?: string };
  agent_start: { agent: string };
  text_delta: { text: string };
  message: { message: Message };
  tool_call: { call: ToolCall };
  tool_result: {
    callId: string;
    name: string;
    /** What the model sees. */
    content: string;
    isError: boolean;
    errorCode?: AgentErrorCode;
    duration: number;
    hasImage?: boolean;
  };
  approval_required: { pending: PendingApproval[] };
  state_delta: { delta: Record<string, unknown> };
  transfer: { from: string; to: string };
  escalate: { reason?: string };
  /**
   * One model call's tokens, the run's total so far, the model that spent them (the one a fallback
   * chain picked, else the agent's) and `duration`, the call's wall time in ms, middleware included.
   */
  usage: { usage: UsageStats; total: UsageStats; model: string; duration: number };
  /** A fallback chain left a model that failed (after its retries) for the next one. */
  model_fallback: {
    from: string;
    to: string;
    /** The failure, in words. */
    reason: string;
    code: AgentErrorCode;
    status?: number;
  };
  error: {
    code: AgentErrorCode;
    message: string;
    context?: Record<string, unknown>;
    /** The agent it happened in, as its path in the tree, root first (see `AgentError.agentPath`). */
    agentPath?: string[];
  };
  agent_end: { agent: string; output: string };
  run_end: { status: RunStatus; output: string; usage: UsageStats; duration: number };
}

/** The kinds of event. */
export type EventType = keyof EventPayloads;

/** One event of a given type. */
export type EventOf<T extends EventType> = EventBase & { type: T } & EventPayloads[T];

/** Everything a run emits: one JSON-serialisable union. */
export type AgentEvent = { [T in EventType]: EventOf<T> }[EventType];

/** Every event type, in the order they typically occur. */
export const EVENT_TYPES: readonly EventType[] = [
  'run_start',
  'agent_start',
  'text_delta',
  'message',
  'tool_call',
  'tool_result',
  'approval_required',
  'state_delta',
  'transfer',
  'escalate',
  'usage',
  'model_fallback',
  'error',
  'agent_end',
  'run_end',
];
