import type { Agent } from '../agent.js';
import type { ApprovalDecision, RunOptions } from '../agent-config.js';
import type { AgentEvent, EventPayloads, EventType } from '../events.js';
import type { HiddenValues } from '../loop/hidden-values.js';
import type { LoopContext } from '../loop/loop-context.js';
import type { ToolInvocationInfo } from '../tool.js';
import type { InvocationContext, InvocationShared } from './invocation-context.js';

/** What an agent fills in of a {@link LoopContext}; the callbacks are {@link InvocationLoop}'s methods. */
export type LoopFields = Omit<
  LoopContext,
  'emit' | 'readState' | 'updateShared' | 'endInvocation' | 'invocation'
>;

/**
 * One LLM agent's loop inside a runner's invocation. A class, so that the loop's callbacks (events,
 * state, ending the invocation, the transfer or loop exit a control tool asks for) are shared
 * methods rather than closures made for every run: each run in flight keeps its loop for its life.
 */
export class InvocationLoop implements LoopContext {
  // Declared here (not only in LoopFields) so every loop gets them as it is made: fields added
  // afterwards, thirty of them, would leave each loop with a slow dictionary of properties.
  agentName!: string;
  invocationId!: string;
  branch!: string;
  input!: string;
  provider!: LoopContext['provider'];
  model!: string;
  pricing: LoopContext['pricing'];
  instruction: LoopContext['instruction'];
  messages!: LoopContext['messages'];
  pairedUpTo!: number;
  tools!: LoopContext['tools'];
  toolDefinitions!: LoopContext['toolDefinitions'];
  settings!: LoopContext['settings'];
  outputSchema: LoopContext['outputSchema'];
  historyWindow: LoopContext['historyWindow'];
  limits!: LoopContext['limits'];
  usage!: LoopContext['usage'];
  agentUsage!: LoopContext['agentUsage'];
  toolCalls!: LoopContext['toolCalls'];
  signal!: AbortSignal;
  options!: RunOptions;
  decisions!: LoopContext['decisions'];
  approvalPolicy: LoopContext['approvalPolicy'];
  toldUnknownTool!: number;
  ended!: boolean;
  streamed!: boolean;
  dispatch!: LoopContext['dispatch'];
  hasMiddleware!: boolean;
  holdsAnswers!: boolean;
  hiddenValues!: HiddenValues | undefined;
  recordedCall!: LoopContext['recordedCall'];
  /** The agent a transfer tool handed the conversation to, if one did. */
  transferTarget: Agent | undefined = undefined;
  readonly invocation: ToolInvocationInfo;
  readonly #ctx: InvocationContext;
  // Who made each tool call of the session, read from its events as far as #authorsRead.
  #authors: Map<string, string> | undefined;
  #authorsRead = 0;

  constructor(ctx: InvocationContext, innerDecisions: readonly ApprovalDecision[]) {
    this.#ctx = ctx;
    this.invocation = new InvocationToolInfo(ctx, innerDecisions);
  }

  emit<T extends EventType>(type: T, payload: EventPayloads[T], stateDelta?: Record<string, unknown>): void {
    this.#ctx.emit(type, payload, stateDelta);
  }

  beforeTools(): Promise<void> | undefined {
    const shared = this.#ctx.shared;
    return shared.writeBeforeTools ? shared.flush() : undefined;
  }

  readState(): Readonly<Record<string, unknown>> {
    return this.#ctx.state();
  }

  updateShared(key: string, update: (current: unknown) => unknown): Promise<unknown> | undefined {
    return this.#ctx.shared.updateShared(key, update);
  }

  endInvocation(): void {
    this.ended = true;
    this.#ctx.endInvocation();
  }

  authorOf(callId: string): string | undefined {
    const events = this.#ctx.shared.session.events;
    this.#authors ??= new Map();
    for (; this.#authorsRead < events.length; this.#authorsRead++) {
      const event = events[this.#authorsRead];
      if (event.type !== 'message') continue;
      for (const call of event.message.toolCalls ?? []) this.#authors.set(call.id, event.author);
    }
    return this.#authors.get(callId);
  }

  /** Called by the transfer tool: the loop stops, and the target runs next. */
  transfer(target: Agent): void {
    this.transferTarget = target;
    this.ended = true;
  }

  /** Called by the exit_loop tool: this loop stops after the current step. */
  exitLoop(): void {
    this.ended = true;
  }
}

// What tools (agent tools) learn of the invocation; `forward` is a method, not a closure per run.
class InvocationToolInfo implements ToolInvocationInfo {
  readonly sessionId: string;
  readonly invocationId: string;
  readonly branch: string;
  readonly store: unknown;
  readonly userId: string | undefined;
  readonly decisions: readonly ApprovalDecision[];
  readonly onApproval: RunOptions['onApproval'];
  readonly #shared: InvocationShared;
  #agentPath: readonly string[] | undefined;
  readonly #ctx: InvocationContext;

  constructor(ctx: InvocationContext, decisions: readonly ApprovalDecision[]) {
    this.#ctx = ctx;
    this.#shared = ctx.shared;
    this.sessionId = ctx.session.id;
    this.invocationId = ctx.invocationId;
    this.branch = ctx.branch;
    this.store = ctx.shared.store;
    this.userId = ctx.shared.userId;
    this.decisions = decisions;
    this.onApproval = ctx.shared.options.onApproval;
  }

  get agentPath(): readonly string[] {
    this.#agentPath ??= this.#ctx.agentPath();
    return this.#agentPath;
  }

  // A child run's model calls are this invocation's spending too: its usage and limits count them,
  // so the run's total says what the run cost.
  forward(event: unknown): void {
    const forwarded = event as AgentEvent;
    this.#shared.sink(forwarded);
    if (forwarded.type === 'usage') this.#ctx.countChildUsage(forwarded.usage);
  }
}
