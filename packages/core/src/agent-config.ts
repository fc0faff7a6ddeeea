import type { Agent } from './agent.js';
import type { AgentEvent, PendingApproval } from './events.js';
import type { HiddenValues } from './loop/hidden-values.js';
import type { HistoryWindow } from './loop/history-window.js';
import type { MemoryProvider } from './memory.js';
import type { Message, ToolCall } from './messages.js';
import type { Middleware } from './middleware/types.js';
import type { JsonSchema, ModelProvider } from './model.js';
import type { AnyTool } from './tool.js';
import type { ModelPricing, UsageStats } from './usage.js';

/** What an instruction template can read when it is rendered. */
export interface InstructionContext {
  agent: string;
  /** The user's message for this run. */
  input: string;
  /** Session state (empty outside a session). */
  state: Readonly<Record<string, unknown>>;
}

/** A system instruction, fixed or computed per step. */
export type Instruction = string | ((context: InstructionContext) => string | Promise<string>);

/** What a policy says about one tool call: run it, ask a human first, or refuse it. */
export type ApprovalVerdict = 'allow' | 'ask' | 'deny';

/** What a policy may read besides the call: the conversation so far and the session it belongs to. */
export interface ApprovalPolicyContext {
  messages: readonly Message[];
  sessionId?: string;
  /** The agent whose call is being decided. */
  agent?: string;
  /** The agent that made a call of the conversation, when known (another agent's may share a tool name). */
  authorOf?: (callId: string) => string | undefined;
}

/** Decides per call whether it may run; `undefined` falls back to the tool's `needsApproval`. */
export type ApprovalPolicy = (
  call: ToolCall,
  tool: AnyTool,
  context?: ApprovalPolicyContext,
) => ApprovalVerdict | undefined;

/** A human's answer to a pending tool call. */
export interface ApprovalDecision {
  callId: string;
  approve: boolean;
  /** Shown to the model when the call is denied. */
  reason?: string;
  /** The answer to a tool's question (a pending call of kind `input`); it becomes the call's result. */
  input?: string;
  /**
   * The call as the person deciding was shown it. When given, a pending call with this id but
   * another name or other arguments (a later pause that reused the id) is not decided: the resume
   * is refused with a `ChangedCallError` and nothing runs.
   */
  seen?: Pick<ToolCall, 'name' | 'arguments'>;
}

/** Run limits; a limit reached stops the run with its error code and keeps the partial result. */
export interface RunLimits {
  /** Model calls per run. Default 10. */
  maxIterations?: number;
  /** Total tokens (every bucket) per run. */
  maxTokens?: number;
  /** Milliseconds for the whole run. */
  timeout?: number;
  /** Milliseconds one tool call may take, unless the tool sets its own. Default 60000. */
  toolTimeout?: number;
  /**
   * Bytes (UTF-8) of one tool result's text that the model gets and the session keeps; a longer
   * result is cut, with a `[truncated: ...]` line saying so. Default 1048576 (1 MiB).
   */
  maxToolResultBytes?: number;
}

/** Settings passed to the model on every call. */
export interface ModelSettings {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  /** Provider-specific options (prompt caching, thinking, ...). */
  options?: Record<string, unknown>;
}

/** Everything an LLM agent is made of. */
export interface AgentConfig extends RunLimits, ModelSettings {
  name: string;
  /** What the agent does, read by people and by parent agents deciding where to send work. */
  description?: string;
  provider: ModelProvider;
  /** The model id sent to the provider. Default: the provider's own default. */
  model?: string;
  /** Prices of the model, so usage carries an estimated cost. */
  pricing?: ModelPricing;
  instruction?: Instruction;
  tools?: readonly AnyTool[];
  middleware?: readonly Middleware[];
  /**
   * Applied to every string of the arguments of the model's tool calls in what a run records (its
   * events, the session), after the agent's redacting middleware ({@link Middleware.redactsCalls}),
   * while the tool receives them as made: the project's secrets, for one.
   */
  redactCalls?: (text: string) => string;
  /**
   * Values hidden in the model's answers (the project's secrets), streamed or not, before anything
   * shows or records them: events, the session, the output; the model's next turns see them hidden.
   */
  hiddenValues?: HiddenValues;
  memory?: MemoryProvider;
  approvalPolicy?: ApprovalPolicy;
  /** JSON Schema the final answer must match; the output is then the parsed object. */
  outputSchema?: JsonSchema;
  /** Agents this one can transfer control to. */
  subAgents?: readonly Agent[];
  /** Session state key the final output is saved under. */
  outputKey?: string;
  /** Forbid transferring back to the parent agent. */
  disallowTransferToParent?: boolean;
  /** Forbid transferring to the parent's other sub-agents. */
  disallowTransferToPeers?: boolean;
  /** Send only the last N messages (a number) or about N tokens of the conversation to the model. */
  maxHistory?: number | HistoryWindow;
}

/** Options of one run. */
export interface RunOptions extends RunLimits, ModelSettings {
  /** The conversation to continue; replaces what memory would load. */
  messages?: readonly Message[];
  /** JSON Schema the final answer must match, for this run. */
  outputSchema?: JsonSchema;
  signal?: AbortSignal;
  /** Memory key. Default `default`. */
  sessionId?: string;
  /** Do not save the conversation to memory after the run. */
  skipMemorySave?: boolean;
  /** State visible to instruction templates. */
  state?: Record<string, unknown>;
  /** Asked instead of pausing when a call needs approval (a prompt, say); `undefined` leaves it pending. */
  onApproval?: (pending: PendingApproval) => Promise<ApprovalDecision | boolean | undefined>;
  onToken?: (text: string) => void;
  onToolCall?: (name: string, args: Record<string, unknown>) => void;
  onToolResult?: (name: string, result: unknown) => void;
  onEvent?: (event: AgentEvent) => void;
  onComplete?: (result: AgentResult<unknown>) => void;
  onError?: (error: Error) => void;
}

/** A tool call the run executed, with what it returned. */
export interface ExecutedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** The value returned by the tool, or the error text given to the model. */
  result: unknown;
  isError: boolean;
  duration: number;
}

/** What a paused invocation stores in its session to be resumed, in any process. */
export interface InvocationCheckpoint {
  version: 1;
  invocationId: string;
  input: string;
  /** The agent the invocation started at (the root, or the agent the session was transferred to). */
  agent: string;
  pending: PendingApproval[];
  /** How many times the invocation has been started (first run plus resumes). */
  attempts: number;
  /** The user the invocation ran for: a resume given no user runs for them too. */
  userId?: string;
}

/**
 * Everything needed to continue a paused `agent.run`, as plain JSON: the session the run used
 * (its state and event log) and the invocation checkpoint a runner keeps in it.
 */
export interface RunCheckpoint {
  version: 2;
  agent: string;
  /** The paused invocation: the same checkpoint a runner stores in a session. */
  invocation: InvocationCheckpoint;
  state: Record<string, unknown>;
  events: AgentEvent[];
}

/** What a run produced. */
export interface AgentResult<T = string> {
  /** `paused` when calls wait for approval: see `pending` and `checkpoint`. */
  status: 'complete' | 'paused';
  /** The final answer: text, or the parsed object when an output schema was given. */
  output: T;
  /** The final answer's text. */
  text: string;
  messages: Message[];
  toolCalls: ExecutedToolCall[];
  usage: UsageStats;
  /** Wall-clock milliseconds. */
  duration: number;
  pending?: PendingApproval[];
  checkpoint?: RunCheckpoint;
}
