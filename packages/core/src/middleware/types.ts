import type { AgentError, AgentErrorCode } from '../errors.js';
import type { PendingApproval } from '../events.js';
import type { ImageContent, ToolCall } from '../messages.js';
import type { ChatParams, ModelResponse } from '../model.js';
import type { UsageStats } from '../usage.js';

/** Why a loop ended. */
export type LoopEndReason =
  | 'complete'
  | 'paused'
  | 'max_iterations'
  | 'max_tokens'
  | 'timeout'
  | 'aborted'
  | 'error';

/** The outcome of one tool call, as the model will see it. */
export interface ToolOutcome {
  /** The text the model receives. */
  content: string;
  /** The value `execute` returned (undefined on error). */
  value?: unknown;
  isError: boolean;
  errorCode?: AgentErrorCode;
  image?: ImageContent;
  /** Milliseconds the call took. */
  duration: number;
  /** State written by the tool; it travels on the `tool_result` event. */
  stateDelta?: Record<string, unknown>;
  /** Set when the tool asked a human a question instead of answering: the run pauses. */
  needsInput?: string;
  /** Set when the tool's own work paused (an agent tool whose child waits for approval). */
  pausedOn?: PendingApproval[];
}

/** The payload of each action type. */
export interface ActionPayloads {
  loop_start: { prompt: string };
  /** Set `response` without calling `next()` to answer in place of the model. */
  model_call: { request: ChatParams; response?: ModelResponse };
  model_response: { response: ModelResponse; usage: UsageStats };
  /** Set `result` without calling `next()` to answer in place of the tool; `signal` may be replaced. */
  tool_call: { call: ToolCall; signal: AbortSignal; result?: ToolOutcome };
  tool_result: { call: ToolCall; result: ToolOutcome };
  error: { source: 'model' | 'tool' | 'internal'; error: AgentError; name?: string; retryable: boolean };
  loop_end: { reason: LoopEndReason; output: string; usage: UsageStats };
}

/** The kinds of action that flow through middleware. */
export type ActionType = keyof ActionPayloads;

/** One action of a given type. */
export interface ActionOf<T extends ActionType> {
  type: T;
  payload: ActionPayloads[T];
  /** The agent running the loop. */
  agent: string;
  timestamp: number;
  /** Free space for middleware to pass notes along the chain. */
  metadata: Record<string, unknown>;
}

/** Any action. */
export type AgentAction = { [T in ActionType]: ActionOf<T> }[ActionType];

/** Calls the rest of the chain, optionally with a replaced action. */
export type Next = (replacement?: AgentAction) => Promise<AgentAction>;

/**
 * An onion middleware: look at the action, call `next()` to continue (or not, to short-circuit),
 * and return the action as it should be from here on.
 */
export type Middleware = ((action: AgentAction, next: Next) => Promise<AgentAction>) & {
  /**
   * Set on a middleware that rewrites the model's answers (`redaction`): an agent with one shows
   * each answer whole once the middleware has seen it, instead of streaming it as it arrives.
   */
  readonly holdsAnswers?: boolean;
  /**
   * Set on a middleware that redacts text (`redaction`): the arguments of the model's tool calls
   * go through it in what a run records (its events, the session, `--json`, traces), while the
   * tool receives them as the model made them.
   */
  readonly redactsCalls?: (text: string) => string;
  /**
   * What `redactsCalls` writes in place of what it hides (`redaction`'s `replacement`): a resume
   * then tells a call recorded under rules changed since the pause from one changed by hand.
   */
  readonly redactionMarker?: string;
};

/** Every action type, in loop order. */
export const ACTION_TYPES: readonly ActionType[] = [
  'loop_start',
  'model_call',
  'model_response',
  'tool_call',
  'tool_result',
  'error',
  'loop_end',
];
