import { AgentError, toAgentError } from '../errors.js';
import type { Message, ToolCall } from '../messages.js';
import type { ChatParams, ModelResponse, ModelSwitch } from '../model.js';
import { type ModelCallObservation, notifyModelCall, observingRuns } from '../run-observer.js';
import { addUsage, type TokenUsage, type UsageStats, usageOfCall } from '../usage.js';
import { abortable, abortError } from './abortable.js';
import { windowOf } from './history-window.js';
import { action, type LoopContext, review } from './loop-context.js';
import { ensureToolResultsComplete, findPairingProblem } from './tool-pairing.js';

/** One model call through the middleware: streams text, records usage, appends the answer. */
export async function modelTurn(ctx: LoopContext): Promise<Message> {
  checkPairing(ctx);
  const request: ChatParams = {
    model: ctx.model,
    system: typeof ctx.instruction === 'function' ? await renderInstruction(ctx) : ctx.instruction,
    messages: windowOf(ctx.messages, ctx.historyWindow),
    tools: ctx.toolDefinitions.length > 0 ? ctx.toolDefinitions : undefined,
    temperature: ctx.settings.temperature,
    topP: ctx.settings.topP,
    maxOutputTokens: ctx.settings.maxOutputTokens,
    options: ctx.settings.options,
    responseFormat: ctx.outputSchema ? { type: 'json_schema', schema: ctx.outputSchema } : undefined,
    signal: ctx.signal,
  };
  ctx.streamed = false;
  let response: ModelResponse;
  // The call's wall time, middleware (a retry) included, for the usage event.
  const started = Date.now();
  try {
    if (!ctx.hasMiddleware) response = await callProvider(ctx, request, started);
    else response = await dispatchModelCall(ctx, request, started);
  } catch (error) {
    // Tokens the provider reported before the call failed were spent: they count for usage and limits.
    const spent = error instanceof AgentError ? (error.context.usage as TokenUsage | undefined) : undefined;
    if (spent) countUsage(ctx, usageOfCall(spent, ctx.pricing), request.model, started);
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    const failure = toAgentError(error, 'PROVIDER_ERROR', { agent: ctx.agentName, model: ctx.model });
    await review(ctx, 'error', { source: 'model', error: failure, retryable: failure.retryable });
    throw failure;
  }
  if (!ctx.streamed && response.content) {
    ctx.emit('text_delta', { text: response.content });
    ctx.options.onToken?.(response.content);
  }
  const servedBy = response.servedBy;
  const usage = usageOfCall(response.usage, servedBy ? servedBy.pricing : ctx.pricing);
  if (ctx.hasMiddleware) response = (await review(ctx, 'model_response', { response, usage })).response;
  countUsage(ctx, usage, servedBy?.model ?? request.model, started);
  const message: Message = { role: 'assistant', content: response.content };
  if (response.toolCalls.length > 0) message.toolCalls = normaliseCalls(response.toolCalls);
  if (response.providerData) message.providerData = response.providerData;
  ctx.messages.push(message);
  ctx.emit('message', { message });
  return message;
}

// The model call as an action middleware can wrap (retry, timeout, logging).
async function dispatchModelCall(
  ctx: LoopContext,
  request: ChatParams,
  started: number,
): Promise<ModelResponse> {
  const called = await ctx.dispatch(action('model_call', ctx.agentName, { request }), async (current) => {
    if (current.type !== 'model_call') return current;
    const result = await callProvider(ctx, current.payload.request, started);
    return { ...current, payload: { ...current.payload, response: result } };
  });
  if (called.type !== 'model_call' || !called.payload.response) {
    throw new AgentError('a middleware ended the model call without a response', 'MODEL_ERROR');
  }
  return called.payload.response;
}

// One provider call, seen by run observers when there are any (a retry middleware calling again
// makes a second one); without observers it is the bare stream.
function callProvider(ctx: LoopContext, request: ChatParams, started: number): Promise<ModelResponse> {
  const observation = observingRuns()
    ? notifyModelCall({
        invocationId: ctx.invocationId,
        branch: ctx.branch,
        agent: ctx.agentName,
        provider: ctx.provider.name,
        request,
      })
    : undefined;
  return abortable(streamModel(ctx, request, started, observation), ctx.signal);
}

function countUsage(ctx: LoopContext, usage: UsageStats, model: string, started: number): void {
  addUsage(ctx.usage, usage);
  addUsage(ctx.agentUsage, usage);
  ctx.emit('usage', { usage, total: { ...ctx.usage }, model, duration: Date.now() - started });
}

// A fallback chain left a model: its spent tokens count against it, and the switch is an event.
function countSwitch(ctx: LoopContext, change: ModelSwitch, started: number): void {
  if (change.usage) countUsage(ctx, usageOfCall(change.usage, change.pricing), change.from, started);
  const error = change.error instanceof AgentError ? change.error : undefined;
  const status = Number(error?.context.status);
  ctx.emit('model_fallback', {
    from: change.from,
    to: change.to,
    reason: change.error.message,
    code: error?.code ?? 'PROVIDER_ERROR',
    ...(Number.isFinite(status) && status > 0 ? { status } : {}),
  });
}

// The observation, if any, is told the outcome here, inside the call's own frame: a `then` on the
// call's promise would cost every observed call a promise, two closures and a turn of the queue.
// A call stopped by its run's signal ends as the provider stops it (every provider honours the
// signal), with the provider's error.
async function streamModel(
  ctx: LoopContext,
  request: ChatParams,
  started: number,
  observation: ModelCallObservation | undefined,
): Promise<ModelResponse> {
  try {
    for await (const event of ctx.provider.stream(request)) {
      switch (event.type) {
        case 'token':
          if (event.text.length === 0) break;
          ctx.streamed = true;
          ctx.emit('text_delta', { text: event.text });
          ctx.options.onToken?.(event.text);
          break;
        case 'fallback':
          countSwitch(ctx, event, started);
          break;
        case 'done':
          if (observation) {
            try {
              observation.end(event.response);
            } catch {
              // An observer's failure must not change the call it watches.
            }
          }
          return event.response;
        case 'error':
          throw event.error;
        default:
          break;
      }
    }
    throw new AgentError(`model ${request.model} ended its stream without a final response`, 'MODEL_ERROR', {
      retryable: true,
    });
  } catch (error) {
    try {
      observation?.fail(toAgentError(ctx.signal.aborted ? abortError(ctx.signal) : error, 'PROVIDER_ERROR'));
    } catch {
      // As above.
    }
    throw error;
  }
}

// The provider's own list unless a call's arguments are not an object (the common answer costs no copy).
function normaliseCalls(calls: ToolCall[]): ToolCall[] {
  for (const call of calls) if (normaliseCall(call) !== call) return calls.map(normaliseCall);
  return calls;
}

function normaliseCall(call: ToolCall): ToolCall {
  const args = call.arguments;
  return args && typeof args === 'object' && !Array.isArray(args) ? call : { ...call, arguments: {} };
}

async function renderInstruction(ctx: LoopContext): Promise<string | undefined> {
  const instruction = ctx.instruction;
  if (instruction === undefined || typeof instruction === 'string') return instruction;
  return instruction({ agent: ctx.agentName, input: ctx.input, state: ctx.readState() });
}

// Only messages added since the last check are scanned, so a step costs the same at any history length.
function checkPairing(ctx: LoopContext): void {
  if (ctx.pairedUpTo >= ctx.messages.length) return;
  let from = ctx.pairedUpTo;
  while (from > 0 && ctx.messages[from].role === 'tool') from--;
  if (findPairingProblem(ctx.messages, from) !== undefined) {
    const repaired = ensureToolResultsComplete(ctx.messages).messages;
    const problem = findPairingProblem(repaired, from);
    if (problem !== undefined) {
      throw new AgentError(`the conversation is not a valid request: ${problem}`, 'MODEL_ERROR', {
        context: { agent: ctx.agentName },
      });
    }
    ctx.messages.splice(0, ctx.messages.length, ...repaired);
  }
  ctx.pairedUpTo = ctx.messages.length;
}
