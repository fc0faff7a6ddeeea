import { randomUUID } from 'node:crypto';
import type {
  AgentConfig,
  AgentResult,
  ApprovalDecision,
  RunCheckpoint,
  RunOptions,
} from './agent-config.js';
import { AgentError, toAgentError } from './errors.js';
import type { AgentEvent } from './events.js';
import { AgentRun } from './loop/agent-run.js';
import { EventChannel } from './loop/event-channel.js';
import { action, eventEmitter, type LoopContext } from './loop/loop-context.js';
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

/** An agent that answers with a model and calls tools in a loop. */
export class LlmAgent {
  /** The agent type, for trees of mixed agents. */
  readonly type = 'llm' as const;
  readonly name: string;
  readonly description: string;
  /** Usage of every run of this agent added up. */
  readonly usage: UsageStats = emptyUsage();
  readonly #config: AgentConfig;
  readonly #tools: ReadonlyMap<string, AnyTool>;
  readonly #dispatch: LoopContext['dispatch'];

  constructor(config: AgentConfig) {
    if (!config.name || config.name === 'user') {
      throw new UsageError(`an agent needs a name other than "user" (got "${config.name ?? ''}")`);
    }
    this.#config = config;
    this.name = config.name;
    this.description = config.description ?? '';
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

  /** Runs one user message to a final answer (or a pause for approval). */
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
    const usage = resume ? structuredClone(resume.checkpoint.usage) : emptyUsage();
    const ctx: LoopContext = {
      agentName: this.name,
      invocationId,
      branch: this.name,
      input,
      provider: config.provider,
      model: config.model ?? config.provider.name,
      pricing: config.pricing,
      instruction: config.instruction,
      readState: () => state,
      messages: [],
      pairedUpTo: 0,
      tools: this.#tools,
      toolDefinitions: [...this.#tools.values()].map(toolDefinition),
      settings: {
        temperature: options.temperature ?? config.temperature,
        topP: options.topP ?? config.topP,
        maxOutputTokens: options.maxOutputTokens ?? config.maxOutputTokens,
        options: options.options ?? config.options,
      },
      outputSchema: options.outputSchema ?? config.outputSchema,
      limits: {
        maxIterations: options.maxIterations ?? config.maxIterations ?? DEFAULT_MAX_ITERATIONS,
        maxTokens: options.maxTokens ?? config.maxTokens ?? Number.POSITIVE_INFINITY,
        toolTimeout: options.toolTimeout ?? config.toolTimeout ?? DEFAULT_TOOL_TIMEOUT,
      },
      usage,
      agentUsage: this.usage,
      toolCalls: resume ? [...resume.checkpoint.toolCalls] : [],
      signal,
      options,
      decisions: new Map((resume?.decisions ?? []).map((d) => [d.callId, d])),
      approvalPolicy: config.approvalPolicy,
      ended: false,
      dispatch: this.#dispatch,
      emit,
    };
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
      await ctx.dispatch(action('loop_start', this.name, { prompt: input }), async (a) => a);
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
      emit('agent_end', { agent: this.name, output: text });
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
    await ctx.dispatch(
      action('loop_end', this.name, { reason, output, usage: { ...ctx.usage } }),
      async (a) => a,
    );
  }
}

/**
 * Creates an LLM agent.
 *
 * @example
 * const agent = createAgent({ name: 'helper', provider: offline(), model: 'echo' });
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

function reasonOf(error: AgentError): LoopEndReason {
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
