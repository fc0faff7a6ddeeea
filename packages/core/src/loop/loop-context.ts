import type {
  ApprovalDecision,
  ApprovalPolicy,
  ExecutedToolCall,
  Instruction,
  RunOptions,
} from '../agent-config.js';
import type { EventPayloads, EventType } from '../events.js';
import type { Message, ToolCall } from '../messages.js';
import type { ActionPayloads, ActionType, AgentAction, Middleware } from '../middleware/types.js';
import type { JsonSchema, ModelProvider, ToolDefinition } from '../model.js';
import type { AnyTool, ToolInvocationInfo } from '../tool.js';
import type { ModelPricing, UsageStats } from '../usage.js';
import { abortable, abortableFromNow } from './abortable.js';
import type { HiddenValues } from './hidden-values.js';
import type { HistoryWindow } from './history-window.js';

/** Everything one run of the loop reads and changes; built once per run. */
export interface LoopContext {
  agentName: string;
  invocationId: string;
  branch: string;
  input: string;
  provider: ModelProvider;
  model: string;
  pricing?: ModelPricing;
  instruction?: Instruction;
  /** The state instruction templates and tools read, as it is now. */
  readState(): Readonly<Record<string, unknown>>;
  /** In a runner: updates a shared key in the store atomically (undefined when it cannot; see `InvocationShared`). */
  updateShared?(key: string, update: (current: unknown) => unknown): Promise<unknown> | undefined;
  /** The history, appended to in place. */
  messages: Message[];
  /** Messages before this index are known to pair every tool call with its result. */
  pairedUpTo: number;
  tools: ReadonlyMap<string, AnyTool>;
  toolDefinitions: ToolDefinition[];
  settings: {
    temperature?: number;
    topP?: number;
    maxOutputTokens?: number;
    options?: Record<string, unknown>;
  };
  outputSchema?: JsonSchema;
  /** Bounds what is sent to the model; the history itself stays complete. */
  historyWindow?: HistoryWindow;
  limits: { maxIterations: number; maxTokens: number; toolTimeout: number; maxToolResultBytes: number };
  usage: UsageStats;
  /** The agent's lifetime usage, added to as the run goes. */
  agentUsage: UsageStats;
  toolCalls: ExecutedToolCall[];
  signal: AbortSignal;
  options: RunOptions;
  /** Decisions for pending calls carried into a resumed run. */
  decisions: Map<string, ApprovalDecision>;
  approvalPolicy?: ApprovalPolicy;
  /** The model call after which the model was told it called a missing tool (-1: never); a later one stops the run. */
  toldUnknownTool: number;
  /** Set when the loop must stop after the current step. */
  ended: boolean;
  /** Set once the current model call streamed text (a field, not a closure made per call). */
  streamed: boolean;
  /** What the loop waits for before a step's tools run: the session's writes, when the runner asks for it. */
  beforeTools(): Promise<void> | undefined;
  /** Called by a tool's `endInvocation()`: stops this loop, and in a runner the whole invocation. */
  endInvocation(): void;
  /** The agent whose model made the call `callId` in this session, when the loop knows the session. */
  authorOf?(callId: string): string | undefined;
  /** Extra context for tools run inside a runner's invocation (agent tools need it). */
  invocation?: ToolInvocationInfo;
  dispatch(action: AgentAction, core: (action: AgentAction) => Promise<AgentAction>): Promise<AgentAction>;
  /** False when the agent has no middleware, so reviews can be skipped. */
  hasMiddleware: boolean;
  /** A middleware rewrites answers ({@link Middleware.holdsAnswers}): text is shown once it has. */
  holdsAnswers: boolean;
  /** Values hidden in the model's answers before they are shown or recorded (the project's secrets). */
  hiddenValues: HiddenValues | undefined;
  /** A tool call as the run records it (its arguments redacted), or the call itself when nothing redacts. */
  recordedCall: (call: ToolCall) => ToolCall;
  emit<T extends EventType>(type: T, payload: EventPayloads[T], stateDelta?: Record<string, unknown>): void;
}

/**
 * The decisions of a run that was given none: one empty map for all of them. The loop only reads
 * it, and deletes a decision it found, so nothing is ever written to it.
 */
export const NO_DECISIONS: Map<string, ApprovalDecision> = new Map();

/** The middleware chain as the loop calls it. */
export type Dispatch = LoopContext['dispatch'];

/** Builds an action to send through middleware. */
export function action<T extends AgentAction['type']>(
  type: T,
  agent: string,
  payload: Extract<AgentAction, { type: T }>['payload'],
): Extract<AgentAction, { type: T }> {
  return { type, agent, payload, timestamp: Date.now(), metadata: {} } as Extract<AgentAction, { type: T }>;
}

/** Middleware list type, re-exported for the loop's files. */
export type MiddlewareList = readonly Middleware[];

// The actions a run sends on its way out, cancelled or not.
const WAY_OUT: ReadonlySet<ActionType> = new Set<ActionType>(['error', 'loop_end']);

/**
 * Sends an action that middleware may look at or replace (not perform) and returns its payload as
 * the chain left it. With no middleware it costs nothing: no action object is made.
 */
export async function review<T extends ActionType>(
  ctx: Pick<LoopContext, 'dispatch' | 'agentName' | 'hasMiddleware' | 'signal'>,
  type: T,
  payload: ActionPayloads[T],
): Promise<ActionPayloads[T]> {
  if (!ctx.hasMiddleware) return payload;
  const made = { type, agent: ctx.agentName, payload, timestamp: Date.now(), metadata: {} } as AgentAction;
  const dispatched = ctx.dispatch(made, async (current) => current);
  // A cancelled run still tells middleware how it failed and ended; every other action is raced
  // even when the run was cancelled before it was sent (a Ctrl-C right at the start).
  const out = await (WAY_OUT.has(type) ? abortableFromNow : abortable)(dispatched, ctx.signal);
  return out.type === type ? (out.payload as ActionPayloads[T]) : payload;
}
