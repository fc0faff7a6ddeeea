import type { Agent } from './agent.js';
import { checkAgentName } from './agent.js';
import type { AgentConfig, ApprovalDecision, RunCheckpoint, RunOptions } from './agent-config.js';
import { branchOf } from './agent-tree.js';
import { AgentError, runError, toAgentError, UsageError } from './errors.js';
import {
  controlTools,
  RESERVED_TOOL_NAMES,
  reservedToolMessage,
  transferTargets,
} from './invocation/control-tools.js';
import type { InvocationContext } from './invocation/invocation-context.js';
import { InvocationLoop, type LoopFields } from './invocation/invocation-loop.js';
import type { AgentRun } from './loop/agent-run.js';
import { keptShapes } from './loop/kept-shapes.js';
import { type LoopContext, NO_DECISIONS, review } from './loop/loop-context.js';
import {
  type CallRecording,
  callRecorder,
  redactionMarkers,
  withPausedArguments,
} from './loop/recorded-call.js';
import { runLoop } from './loop/run-loop.js';
import { schemaValidator } from './loop/schema-validator.js';
import { ensureToolResultsComplete } from './loop/tool-pairing.js';
import type { ToolCall } from './messages.js';
import { compose } from './middleware/compose.js';
import type { LoopEndReason } from './middleware/types.js';
import type { ToolDefinition } from './model.js';
import { resumeStandalone, runStandalone } from './standalone-run.js';
import { deadline } from './timing/deadline.js';
import { type AnyTool, toolDefinition } from './tool.js';
import { emptyUsage, type UsageStats } from './usage.js';

/** Re-exported for code that imported it from here. */
export { UsageError };

const DEFAULT_MAX_ITERATIONS = 10;
const DEFAULT_TOOL_TIMEOUT = 60_000;
// As the command, HTTP and fetch tools' own output limits: past it a result is more than a model's
// context window holds, and kept whole it would grow every later turn of the session.
const DEFAULT_MAX_TOOL_RESULT_BYTES = 1024 * 1024;

type LoopParams = Pick<
  LoopContext,
  'invocationId' | 'branch' | 'input' | 'messages' | 'signal' | 'options' | 'usage' | 'toolCalls'
> & { decisions?: readonly ApprovalDecision[]; extraTools?: readonly AnyTool[] };

/** An agent that answers with a model and calls tools in a loop. */
export class LlmAgent implements Agent {
  /** The agent type, for trees of mixed agents. */
  readonly type = 'llm' as const;
  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly Agent[];
  parent?: Agent;
  /** Usage of every run of this agent added up. */
  readonly usage: UsageStats = emptyUsage();
  readonly #config: AgentConfig;
  readonly #tools: ReadonlyMap<string, AnyTool>;
  readonly #dispatch: LoopContext['dispatch'];

  constructor(config: AgentConfig) {
    try {
      checkAgentName(config.name);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    this.#config = config;
    this.name = config.name;
    this.description = config.description ?? '';
    this.subAgents = config.subAgents ?? [];
    const tools = new Map<string, AnyTool>();
    for (const tool of config.tools ?? []) {
      if (tools.has(tool.name))
        throw new UsageError(`agent ${config.name} has two tools named "${tool.name}"`);
      if (RESERVED_TOOL_NAMES.includes(tool.name))
        throw new UsageError(`agent ${config.name}: ${reservedToolMessage(tool.name)}`);
      tools.set(tool.name, tool);
    }
    this.#tools = tools;
    this.#dispatch = compose(config.middleware ?? []);
  }

  /** The configuration the agent was made with. */
  getConfig(): Readonly<AgentConfig> {
    return this.#config;
  }

  /** How this agent records the model's calls: through its redaction rules as they are now. */
  callRecording(): CallRecording {
    const config = this.#config;
    this.#recordedCall ??= callRecorder(config.redactCalls, config.middleware);
    return { record: this.#recordedCall, markers: redactionMarkers(config.middleware) };
  }

  /** The agent's tools by name. */
  get tools(): ReadonlyMap<string, AnyTool> {
    return this.#tools;
  }

  /**
   * Runs one user message to a final answer (or a pause for approval), outside any session tree:
   * a {@link Runner} over an in-memory session that lives for this run.
   */
  run<T = string>(prompt: string, options: RunOptions = {}): AgentRun<T> {
    return runStandalone<T>(this, prompt, options, this.#config.memory);
  }

  /** Continues a paused run with a decision for each pending call (a call left out stays pending). */
  resume<T = string>(
    checkpoint: RunCheckpoint,
    decisions: readonly ApprovalDecision[],
    options: Omit<RunOptions, 'messages'> = {},
  ): AgentRun<T> {
    return resumeStandalone<T>(this, checkpoint, decisions, options, this.#config.memory);
  }

  /** Runs this agent's part of a runner's invocation: its loop, then a transfer if it asked for one. */
  async runInvocation(ctx: InvocationContext): Promise<void> {
    const replayed = ctx.consumeReplay();
    if (replayed) {
      // A run that transferred before the pause hands over again, or the paused target is never reached.
      const target = transferTargets(this).find((t) => t.name === replayed.transfer);
      if (target && !ctx.stopped) await ctx.transferTo(target, branchOf(target)).runAgent();
      return;
    }
    ctx.emit('agent_start', { agent: this.name });
    const { decisions, innerDecisions } = decisionsFor(ctx);
    const resuming = decisions !== NONE;
    const history = ctx.history();
    // Both are fresh arrays this run owns: `history` is made for it, a repaired one is a new copy.
    const messages = resuming
      ? withPausedArguments(history, ctx.shared.resumePending)
      : ensureToolResultsComplete(history).messages;
    const usage = emptyUsage();
    // The agent's own time budget, inside the invocation's: reaching it names this agent.
    const limit = this.#config.timeout;
    const budget =
      limit === undefined
        ? deadline(ctx.signal, undefined, noReason)
        : deadline(ctx.signal, limit, () => {
            return new AgentError(`agent ${this.name} reached its time limit of ${limit} ms`, 'TIMEOUT', {
              context: { agent: this.name, limit },
            });
          });
    const loop = new InvocationLoop(ctx, innerDecisions);
    keptShapes.loop = loop;
    this.#fill(loop, {
      invocationId: ctx.invocationId,
      branch: ctx.branch,
      input: ctx.shared.input,
      messages,
      signal: budget.signal,
      options: ctx.shared.options,
      usage,
      toolCalls: ctx.shared.toolCalls,
      decisions,
      extraTools: controlTools(this, ctx, loop),
    });
    for (const decision of decisions) ctx.shared.decisions.delete(decision.callId);
    // Written before the first step too: a process killed in it (a module middleware that never
    // yields, kill -9) keeps what the user asked.
    const written = loop.beforeTools();
    if (written) await written;
    // Without middleware nobody reviews: no action, no await.
    if (loop.hasMiddleware) await review(loop, 'loop_start', { prompt: ctx.shared.input });
    let reason: LoopEndReason = 'error';
    let text = '';
    try {
      const outcome = await runLoop(loop);
      text = outcome.text;
      reason = outcome.reason;
      if (outcome.reason === 'paused') {
        ctx.shared.pending.push(...outcome.pending);
        return;
      }
      const output = loop.outputSchema ? await parseOutput(loop, text) : text;
      ctx.shared.value = output;
      const key = this.#config.outputKey;
      ctx.emit('agent_end', { agent: this.name, output: text }, key ? { [key]: output } : undefined);
    } catch (thrown) {
      const error =
        budget.signal.aborted && !ctx.signal.aborted
          ? toAgentError(budget.signal.reason, 'TIMEOUT')
          : runError(thrown, { agent: this.name });
      reason = reasonOf(error);
      throw ctx.locate(error);
    } finally {
      budget.dispose();
      if (loop.hasMiddleware) await review(loop, 'loop_end', { reason, output: text, usage: { ...usage } });
    }
    const transfer = loop.transferTarget;
    if (transfer && !ctx.stopped) await ctx.transferTo(transfer, branchOf(transfer)).runAgent();
  }

  #toolDefinitions: ToolDefinition[] | undefined;

  // The tools as the model is told about them, made once (tools are fixed when the agent is made).
  #definitions(): ToolDefinition[] {
    this.#toolDefinitions ??= [...this.#tools.values()].map(toolDefinition);
    return this.#toolDefinitions;
  }

  // Settings, limits and history window from the agent's config and a run's options; made once for
  // the runs given no options of their own (the one frozen default), rather than kept by every run.
  #made: MadeFromOptions | undefined;

  #madeFor(options: RunOptions): MadeFromOptions {
    if (this.#made?.options === options) return this.#made;
    const config = this.#config;
    const made: MadeFromOptions = {
      options,
      settings: {
        temperature: options.temperature ?? config.temperature,
        topP: options.topP ?? config.topP,
        maxOutputTokens: options.maxOutputTokens ?? config.maxOutputTokens,
        options: options.options ?? config.options,
      },
      limits: {
        maxIterations: options.maxIterations ?? config.maxIterations ?? DEFAULT_MAX_ITERATIONS,
        maxTokens: options.maxTokens ?? config.maxTokens ?? Number.POSITIVE_INFINITY,
        toolTimeout: options.toolTimeout ?? config.toolTimeout ?? DEFAULT_TOOL_TIMEOUT,
        maxToolResultBytes:
          options.maxToolResultBytes ?? config.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES,
      },
      historyWindow:
        typeof config.maxHistory === 'number' ? { messages: config.maxHistory } : config.maxHistory,
    };
    // A caller's own options object may change between runs; only a frozen one is kept.
    if (Object.isFrozen(options)) this.#made = made;
    return made;
  }

  // Fills the loop in place, field by field (a literal of thirty fields copied into it by
  // `Object.assign` was two objects and a runtime copy a run).
  #fill(loop: LoopFields, params: LoopParams): void {
    const config = this.#config;
    const options = params.options;
    const extra = params.extraTools ?? [];
    // Most agents have no control tools: their runs share the agent's own map and definitions.
    let tools = this.#tools;
    if (extra.length > 0) {
      const merged = new Map(this.#tools);
      for (const tool of extra) merged.set(tool.name, tool);
      tools = merged;
    }
    const made = this.#madeFor(options);
    loop.agentName = this.name;
    loop.invocationId = params.invocationId;
    loop.branch = params.branch;
    loop.input = params.input;
    loop.provider = config.provider;
    loop.model = config.model ?? config.provider.name;
    loop.pricing = config.pricing;
    loop.instruction = config.instruction;
    loop.messages = params.messages;
    loop.pairedUpTo = params.decisions && params.decisions.length > 0 ? params.messages.length : 0;
    loop.tools = tools;
    loop.toolDefinitions = extra.length > 0 ? [...tools.values()].map(toolDefinition) : this.#definitions();
    loop.settings = made.settings;
    loop.outputSchema = options.outputSchema ?? config.outputSchema;
    loop.historyWindow = made.historyWindow;
    loop.limits = made.limits;
    loop.usage = params.usage;
    loop.agentUsage = this.usage;
    loop.toolCalls = params.toolCalls;
    loop.signal = params.signal;
    loop.options = options;
    loop.decisions = params.decisions?.length
      ? new Map(params.decisions.map((d) => [d.callId, d]))
      : NO_DECISIONS;
    loop.approvalPolicy = config.approvalPolicy;
    loop.toldUnknownTool = -1;
    loop.ended = false;
    loop.streamed = false;
    loop.dispatch = this.#dispatch;
    loop.hasMiddleware = (config.middleware?.length ?? 0) > 0;
    loop.holdsAnswers = config.middleware?.some((m) => m.holdsAnswers === true) ?? false;
    loop.hiddenValues = config.hiddenValues;
    this.#recordedCall ??= callRecorder(config.redactCalls, config.middleware);
    loop.recordedCall = this.#recordedCall;
  }

  #recordedCall: ((call: ToolCall) => ToolCall) | undefined;
}

type MadeFromOptions = Pick<LoopFields, 'options' | 'settings' | 'limits' | 'historyWindow'>;

const NONE: readonly ApprovalDecision[] = Object.freeze([]);
const noReason = (): undefined => undefined;

// On resume, this agent takes the decisions for the calls it paused on; calls inside an agent tool
// resume through that tool's own call, which runs again (and passes on `innerDecisions`).
function decisionsFor(ctx: InvocationContext): {
  decisions: readonly ApprovalDecision[];
  innerDecisions: readonly ApprovalDecision[];
} {
  const shared = ctx.shared;
  const paused = shared.resumePending.filter((p) => (p.via?.branch ?? p.branch) === ctx.branch);
  const innerDecisions = shared.decisions.size > 0 ? [...shared.decisions.values()] : NONE;
  if (paused.length === 0) return { decisions: NONE, innerDecisions };
  const decisions = paused.flatMap((p): ApprovalDecision[] => {
    if (p.via) return [{ callId: p.via.callId, approve: true }];
    const decision = shared.decisions.get(p.call.id);
    return decision ? [decision] : [];
  });
  return { decisions, innerDecisions };
}

/**
 * Creates an LLM agent.
 *
 * @example
 * const agent = createAgent({ name: 'helper', provider: offline('echo') });
 * const result = await agent.run('hello');
 */
export function createAgent(config: AgentConfig): LlmAgent {
  return new LlmAgent(config);
}

/** The loop-end reason for an error code. */
export function reasonOf(error: AgentError): LoopEndReason {
  switch (error.code) {
    case 'MAX_ITERATIONS_EXCEEDED':
      return 'max_iterations';
    case 'MAX_TOKENS_EXCEEDED':
      return 'max_tokens';
    case 'TIMEOUT':
      return 'timeout';
    case 'ABORTED':
      return 'aborted';
    default:
      return 'error';
  }
}

async function parseOutput(ctx: LoopContext, text: string): Promise<unknown> {
  const schema = ctx.outputSchema;
  if (!schema) return text;
  const trimmed = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    throw new AgentError(`the final answer is not JSON: ${(error as Error).message}`, 'OUTPUT_PARSE_ERROR', {
      context: { agent: ctx.agentName, text },
    });
  }
  const check = (await schemaValidator(schema))(value);
  if (!check.ok) {
    throw new AgentError(
      `the final answer does not match the output schema: ${check.errors.join('; ').replaceAll('arguments', 'output')}`,
      'OUTPUT_PARSE_ERROR',
      { context: { agent: ctx.agentName, text } },
    );
  }
  return value;
}
