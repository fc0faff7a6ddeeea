import { randomUUID } from 'node:crypto';
import type { Agent } from './agent.js';
import { checkAgentName } from './agent.js';
import type {
  AgentConfig,
  AgentResult,
  ApprovalDecision,
  RunCheckpoint,
  RunOptions,
} from './agent-config.js';
import { branchOf } from './agent-tree.js';
import { AgentError, toAgentError } from './errors.js';
import type { AgentEvent } from './events.js';
import { controlTools, transferTargets } from './invocation/control-tools.js';
import type { InvocationContext } from './invocation/invocation-context.js';
import { AgentRun } from './loop/agent-run.js';
import { EventChannel } from './loop/event-channel.js';
import { eventEmitter, type LoopContext, review } from './loop/loop-context.js';
import { runLoop } from './loop/run-loop.js';
import { schemaValidator } from './loop/schema-validator.js';
import { ensureToolResultsComplete } from './loop/tool-pairing.js';
import type { Message } from './messages.js';
import { compose } from './middleware/compose.js';
import type { LoopEndReason } from './middleware/types.js';
import { applyDelta } from './state-delta.js';
import { type AnyTool, toolDefinition } from './tool.js';
import { emptyUsage, type UsageStats } from './usage.js';

/** Thrown for a misuse of the API (a bad resume, a duplicate tool), never for a model's behaviour. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const DEFAULT_MAX_ITERATIONS = 10;
const DEFAULT_TOOL_TIMEOUT = 60_000;

type LoopParams = Pick<
  LoopContext,
  | 'invocationId'
  | 'branch'
  | 'input'
  | 'messages'
  | 'signal'
  | 'options'
  | 'usage'
  | 'emit'
  | 'readState'
  | 'endInvocation'
  | 'invocation'
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
      tools.set(tool.name, tool);
    }
    this.#tools = tools;
    this.#dispatch = compose(config.middleware ?? []);
  }

  /** The configuration the agent was made with. */
  getConfig(): Readonly<AgentConfig> {
    return this.#config;
  }

  /** The agent's tools by name. */
  get tools(): ReadonlyMap<string, AnyTool> {
    return this.#tools;
  }

  /** Runs one user message to a final answer (or a pause for approval), outside any session tree. */
  run<T = string>(prompt: string, options: RunOptions = {}): AgentRun<T> {
    return this.#start<T>(prompt, options);
  }

  /** Continues a paused run with a decision for each pending call (a call left out stays pending). */
  resume<T = string>(
    checkpoint: RunCheckpoint,
    decisions: readonly ApprovalDecision[],
    options: Omit<RunOptions, 'messages'> = {},
  ): AgentRun<T> {
    if (checkpoint.version !== 1)
      throw new UsageError(`unsupported checkpoint version ${String(checkpoint.version)}`);
    if (checkpoint.agent !== this.name) {
      throw new UsageError(`the checkpoint belongs to agent ${checkpoint.agent}, not ${this.name}`);
    }
    const pendingIds = new Set(checkpoint.pending.map((p) => p.call.id));
    for (const decision of decisions) {
      if (!pendingIds.has(decision.callId)) {
        const known = [...pendingIds].join(', ') || 'none';
        throw new UsageError(`no pending tool call has id ${decision.callId} (pending: ${known})`);
      }
    }
    return this.#start<T>(checkpoint.input, options, { checkpoint, decisions });
  }

  /** Runs this agent's part of a runner's invocation: its loop, then a transfer if it asked for one. */
  async runInvocation(ctx: InvocationContext): Promise<void> {
    const replayed = ctx.consumeReplay();
    if (replayed) {
      // A run that transferred before the pause hands over again, or the paused target is never reached.
      const target = transferTargets(this).find((t) => t.name === replayed.transfer);
      if (target && !ctx.stopped) await target.runInvocation(ctx.transferTo(target, branchOf(target)));
      return;
    }
    ctx.emit('agent_start', { agent: this.name });
    // On resume, this agent takes the decisions for the calls it paused on.
    // Calls inside an agent tool resume through that tool's own call, which runs again.
    const paused = ctx.shared.resumePending.filter((p) => (p.via?.branch ?? p.branch) === ctx.branch);
    const innerDecisions = [...ctx.shared.decisions.values()];
    const decisions = paused.flatMap((p): ApprovalDecision[] => {
      if (p.via) return [{ callId: p.via.callId, approve: true }];
      const decision = ctx.shared.decisions.get(p.call.id);
      return decision ? [decision] : [];
    });
    const resuming = paused.length > 0;
    const history = ctx.history();
    const messages = resuming ? history : ensureToolResultsComplete(history).messages.slice();
    const usage = emptyUsage();
    let transfer: Agent | undefined;
    // The agent's own time budget, inside the invocation's: reaching it names this agent.
    const budget = timeBudget(ctx.signal, this.#config.timeout, this.name);
    const loop: LoopContext = this.#loopContext({
      invocationId: ctx.invocationId,
      branch: ctx.branch,
      input: ctx.shared.input,
      messages,
      signal: budget.signal,
      options: { onApproval: ctx.shared.options.onApproval, sessionId: ctx.session.id },
      usage,
      emit: (type, payload, delta) => ctx.emit(type, payload, delta),
      readState: () => ctx.state(),
      endInvocation: () => {
        loop.ended = true;
        ctx.endInvocation();
      },
      invocation: {
        sessionId: ctx.session.id,
        invocationId: ctx.invocationId,
        branch: ctx.branch,
        store: ctx.shared.store,
        forward: (event) => ctx.shared.sink(event as AgentEvent),
        decisions: innerDecisions,
        onApproval: ctx.shared.options.onApproval,
      },
      decisions,
      extraTools: controlTools(this, ctx, {
        transfer: (target) => {
          transfer = target;
          loop.ended = true;
        },
        exitLoop: () => {
          loop.ended = true;
        },
      }),
    });
    for (const decision of decisions) ctx.shared.decisions.delete(decision.callId);
    await review(loop, 'loop_start', { prompt: ctx.shared.input });
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
      const output = await parseOutput(loop, text);
      const key = this.#config.outputKey;
      ctx.emit('agent_end', { agent: this.name, output: text }, key ? { [key]: output } : undefined);
    } catch (error) {
      if (budget.signal.aborted && !ctx.signal.aborted) throw budget.signal.reason;
      throw error;
    } finally {
      budget.dispose();
      await review(loop, 'loop_end', { reason, output: text, usage: { ...usage } });
    }
    if (transfer && !ctx.stopped) await transfer.runInvocation(ctx.transferTo(transfer, branchOf(transfer)));
  }

  #loopContext(params: LoopParams): LoopContext {
    const config = this.#config;
    const options = params.options;
    const tools = new Map(this.#tools);
    for (const tool of params.extraTools ?? []) tools.set(tool.name, tool);
    return {
      agentName: this.name,
      invocationId: params.invocationId,
      branch: params.branch,
      input: params.input,
      provider: config.provider,
      model: config.model ?? config.provider.name,
      pricing: config.pricing,
      instruction: config.instruction,
      readState: params.readState,
      messages: params.messages,
      pairedUpTo: params.decisions && params.decisions.length > 0 ? params.messages.length : 0,
      tools,
      toolDefinitions: [...tools.values()].map(toolDefinition),
      settings: {
        temperature: options.temperature ?? config.temperature,
        topP: options.topP ?? config.topP,
        maxOutputTokens: options.maxOutputTokens ?? config.maxOutputTokens,
        options: options.options ?? config.options,
      },
      outputSchema: options.outputSchema ?? config.outputSchema,
      historyWindow:
        typeof config.maxHistory === 'number' ? { messages: config.maxHistory } : config.maxHistory,
      limits: {
        maxIterations: options.maxIterations ?? config.maxIterations ?? DEFAULT_MAX_ITERATIONS,
        maxTokens: options.maxTokens ?? config.maxTokens ?? Number.POSITIVE_INFINITY,
        toolTimeout: options.toolTimeout ?? config.toolTimeout ?? DEFAULT_TOOL_TIMEOUT,
      },
      usage: params.usage,
      agentUsage: this.usage,
      toolCalls: [],
      signal: params.signal,
      options,
      decisions: new Map((params.decisions ?? []).map((d) => [d.callId, d])),
      approvalPolicy: config.approvalPolicy,
      ended: false,
      endInvocation: params.endInvocation,
      invocation: params.invocation,
      dispatch: this.#dispatch,
      hasMiddleware: (config.middleware?.length ?? 0) > 0,
      emit: params.emit,
    };
  }

  #start<T>(
    input: string,
    options: RunOptions,
    resume?: { checkpoint: RunCheckpoint; decisions: readonly ApprovalDecision[] },
  ): AgentRun<T> {
    const channel = new EventChannel<AgentEvent>();
    const controller = new AbortController();
    const result = this.#execute<T>(input, options, channel, controller, resume);
    return new AgentRun<T>(channel, result, controller);
  }

  async #execute<T>(
    input: string,
    options: RunOptions,
    channel: EventChannel<AgentEvent>,
    controller: AbortController,
    resume?: { checkpoint: RunCheckpoint; decisions: readonly ApprovalDecision[] },
  ): Promise<AgentResult<T>> {
    const config = this.#config;
    const started = performance.now();
    const timeoutMs = options.timeout ?? config.timeout;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              controller.abort(
                new AgentError(`run timed out after ${timeoutMs} ms`, 'TIMEOUT', {
                  context: { agent: this.name },
                }),
              ),
            timeoutMs,
          );
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    const invocationId = randomUUID();
    const state = options.state ?? {};
    const emit = eventEmitter(
      { invocationId, branch: this.name, author: this.name },
      (event) => channel.push(event),
      options.onEvent,
      (delta) => applyDelta(state, delta),
    );
    const sessionId = options.sessionId ?? 'default';
    const ctx = this.#loopContext({
      invocationId,
      branch: this.name,
      input,
      messages: [],
      signal,
      options,
      usage: resume ? structuredClone(resume.checkpoint.usage) : emptyUsage(),
      emit,
      readState: () => state,
      endInvocation: () => {
        ctx.ended = true;
      },
      decisions: resume?.decisions,
    });
    if (resume) ctx.toolCalls.push(...resume.checkpoint.toolCalls);
    const partial = (text: string): AgentResult<T> => ({
      status: 'complete',
      output: text as T,
      text,
      messages: ctx.messages,
      toolCalls: ctx.toolCalls,
      usage: { ...ctx.usage },
      duration: performance.now() - started,
    });
    let text = '';
    try {
      emit('run_start', { input });
      emit('agent_start', { agent: this.name });
      ctx.messages = await this.#history(input, options, sessionId, resume?.checkpoint);
      ctx.pairedUpTo = resume ? ctx.messages.length : 0;
      if (!resume) emit('message', { message: ctx.messages[ctx.messages.length - 1] });
      await review(ctx, 'loop_start', { prompt: input });
      const outcome = await runLoop(ctx);
      text = outcome.text;
      const result = partial(text);
      if (outcome.reason === 'paused') {
        result.status = 'paused';
        result.pending = outcome.pending;
        result.checkpoint = {
          version: 1,
          agent: this.name,
          input,
          messages: structuredClone(ctx.messages),
          pending: outcome.pending,
          usage: { ...ctx.usage },
          toolCalls: [...ctx.toolCalls],
        };
        emit('approval_required', { pending: outcome.pending });
      } else {
        result.output = (await parseOutput(ctx, text)) as T;
      }
      await this.#finish(ctx, outcome.reason, text);
      if (!options.skipMemorySave) await config.memory?.save(sessionId, ctx.messages);
      result.duration = performance.now() - started;
      const key = config.outputKey;
      emit(
        'agent_end',
        { agent: this.name, output: text },
        key && result.status === 'complete' ? { [key]: result.output } : undefined,
      );
      emit('run_end', {
        status: result.status,
        output: text,
        usage: result.usage,
        duration: result.duration,
      });
      options.onComplete?.(result as AgentResult<unknown>);
      return result;
    } catch (thrown) {
      const error =
        signal.aborted && !(thrown instanceof AgentError)
          ? toAgentError(signal.reason, 'ABORTED')
          : toAgentError(thrown, 'MODEL_ERROR', { agent: this.name });
      error.result = partial(lastText(ctx.messages));
      emit('error', { code: error.code, message: error.message, context: error.context });
      await this.#finish(ctx, reasonOf(error), text).catch(() => undefined);
      if (!options.skipMemorySave) await config.memory?.save(sessionId, ctx.messages).catch(() => undefined);
      const duration = performance.now() - started;
      emit('run_end', { status: 'error', output: lastText(ctx.messages), usage: { ...ctx.usage }, duration });
      options.onError?.(error);
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      channel.close();
    }
  }

  async #history(
    input: string,
    options: RunOptions,
    sessionId: string,
    checkpoint?: RunCheckpoint,
  ): Promise<Message[]> {
    if (checkpoint) return structuredClone(checkpoint.messages);
    const loaded = options.messages ?? (await this.#config.memory?.load(sessionId)) ?? [];
    const history = ensureToolResultsComplete(loaded).messages.slice();
    history.push({ role: 'user', content: input });
    return history;
  }

  async #finish(ctx: LoopContext, reason: LoopEndReason, output: string): Promise<void> {
    await review(ctx, 'loop_end', { reason, output, usage: { ...ctx.usage } });
  }
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

function lastText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'assistant' && messages[i].content) return messages[i].content ?? '';
  }
  return '';
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

// A signal that aborts with the outer one, or with a TIMEOUT naming the agent after `ms`.
function timeBudget(
  outer: AbortSignal,
  ms: number | undefined,
  agent: string,
): { signal: AbortSignal; dispose(): void } {
  if (ms === undefined) return { signal: outer, dispose: () => undefined };
  const controller = new AbortController();
  const forward = () => controller.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new AgentError(`agent ${agent} reached its time limit of ${ms} ms`, 'TIMEOUT', {
          context: { agent, limit: ms },
        }),
      ),
    ms,
  );
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      outer.removeEventListener('abort', forward);
    },
  };
}
