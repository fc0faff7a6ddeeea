import { AgentError, toAgentError } from '../errors.js';
import type { Message, ToolCall } from '../messages.js';
import type { ChatParams, ModelResponse, ModelSwitch } from '../model.js';
import { type ModelCallObservation, notifyModelCall, observingRuns } from '../run-observer.js';
import { addUsage, type TokenUsage, type UsageStats, usageOfCall, usageOfFailedCall } from '../usage.js';
import { abortable, abortError, type Wait, waitOn } from './abortable.js';
import { CallAttempts } from './call-attempts.js';
import { StreamedHiding } from './hidden-values.js';
import { windowOf } from './history-window.js';
import { keptShapes } from './kept-shapes.js';
import { action, type LoopContext, review } from './loop-context.js';
import { recordedMessage } from './recorded-call.js';
import { dropUnansweringResults, ensureToolResultsComplete, findPairingProblem } from './tool-pairing.js';

/** One model call through the middleware: streams text, records usage, appends the answer. */
export function modelTurn(ctx: LoopContext): Promise<Message> {
  if (ctx.hasMiddleware || typeof ctx.instruction === 'function') return reviewedTurn(ctx);
  // Nothing to review or render: the turn is one object and one wait, without an async frame of
  // its own (each of a thousand runs in flight keeps its frames while its model answers). Observed
  // runs take it too: tracing on must cost what it adds, not a slower turn.
  try {
    checkPairing(ctx);
  } catch (error) {
    return Promise.reject(error);
  }
  const request = requestOf(ctx, ctx.instruction);
  ctx.streamed = false;
  // performance.now(), not Date.now(): the same reading starts an observer's span.
  const started = performance.now();
  const observation = observeCall(ctx, request, started);
  const wait = waitForCall<Message>(ctx, observation);
  if (!wait) return Promise.reject(abortError(ctx.signal));
  const turn = new DirectTurn(ctx, request, started, wait, observation);
  keptShapes.turn = turn;
  void streamModel(ctx, request, started, turn);
  return wait.promise;
}

async function reviewedTurn(ctx: LoopContext): Promise<Message> {
  checkPairing(ctx);
  const instruction = typeof ctx.instruction === 'function' ? await renderInstruction(ctx) : ctx.instruction;
  const request = requestOf(ctx, instruction);
  ctx.streamed = false;
  let response: ModelResponse;
  // The call's time, middleware (a retry) included, for the usage event.
  const started = performance.now();
  const attempts = ctx.hasMiddleware ? new CallAttempts() : undefined;
  try {
    if (!attempts) response = await callProvider(ctx, request, started);
    else response = await dispatchModelCall(ctx, request, started, attempts);
  } catch (error) {
    const failure = turnError(ctx, error, request, started, attempts?.turnFailed() ?? true);
    if (!ctx.signal.aborted)
      await review(ctx, 'error', { source: 'model', error: failure, retryable: failure.retryable });
    throw failure;
  }
  response = hiddenAnswer(ctx, response);
  const usage = answerUsage(ctx, response, !ctx.holdsAnswers);
  if (ctx.hasMiddleware)
    response = hiddenAnswer(ctx, (await review(ctx, 'model_response', { response, usage })).response);
  if (ctx.holdsAnswers) showAnswer(ctx, response);
  return appendAnswer(ctx, response, usage, request, started);
}

function requestOf(ctx: LoopContext, system: string | undefined): ChatParams {
  return {
    model: ctx.model,
    system,
    messages: windowOf(ctx.messages, ctx.historyWindow),
    tools: ctx.toolDefinitions.length > 0 ? ctx.toolDefinitions : undefined,
    temperature: ctx.settings.temperature,
    topP: ctx.settings.topP,
    maxOutputTokens: ctx.settings.maxOutputTokens,
    options: ctx.settings.options,
    responseFormat: ctx.outputSchema ? { type: 'json_schema', schema: ctx.outputSchema } : undefined,
    signal: ctx.signal,
  };
}

// What a failed call throws: an abort as the abort, else a provider error. Its failure is counted
// unless `uncounted` is false (a middleware's attempts were counted as they failed).
function turnError(
  ctx: LoopContext,
  error: unknown,
  request: ChatParams,
  started: number,
  uncounted = true,
): AgentError {
  if (uncounted) countFailure(ctx, error, request.model, started);
  if (ctx.signal.aborted) return abortError(ctx.signal);
  return toAgentError(error, 'PROVIDER_ERROR', { agent: ctx.agentName, model: ctx.model });
}

// Tokens the provider reported before a call failed were spent, and count for usage and limits. A
// call that failed (not one cancelled) counts as a failed model call, so a summary never says none
// were made.
function countFailure(ctx: LoopContext, error: unknown, model: string, started: number): void {
  const spent = error instanceof AgentError ? (error.context.usage as TokenUsage | undefined) : undefined;
  if (!ctx.signal.aborted) countUsage(ctx, usageOfFailedCall(spent, ctx.pricing), model, started);
  else if (spent) countUsage(ctx, usageOfCall(spent, ctx.pricing), model, started);
}

// The answer's text as an event when it was not streamed (and is to be shown now), and the call's usage.
function answerUsage(ctx: LoopContext, response: ModelResponse, show = true): UsageStats {
  if (show) showAnswer(ctx, response);
  const servedBy = response.servedBy;
  return usageOfCall(response.usage, servedBy ? servedBy.pricing : ctx.pricing);
}

// The answer with the agent's hidden values (the project's secrets) hidden in its text: what is
// shown, recorded and sent back to the model. A secret the model was told is not written down.
function hiddenAnswer(ctx: LoopContext, response: ModelResponse): ModelResponse {
  const content = response.content;
  if (!ctx.hiddenValues || !content) return response;
  const hidden = ctx.hiddenValues.scrub(content);
  return hidden === content ? response : { ...response, content: hidden };
}

function showAnswer(ctx: LoopContext, response: ModelResponse): void {
  if (!ctx.streamed && response.content) {
    ctx.emit('text_delta', { text: response.content });
    ctx.options.onToken?.(response.content);
  }
}

function appendAnswer(
  ctx: LoopContext,
  response: ModelResponse,
  usage: UsageStats,
  request: ChatParams,
  started: number,
  ended?: number,
): Message {
  countUsage(ctx, usage, response.servedBy?.model ?? request.model, started, ended);
  const message: Message = { role: 'assistant', content: response.content };
  if (response.toolCalls.length > 0) message.toolCalls = normaliseCalls(response.toolCalls);
  if (response.providerData) message.providerData = response.providerData;
  // Said on the message (its event, the session): an answer cut short reads like a whole one.
  const finish = response.finishReason;
  if (finish === 'length' || finish === 'content_filter') message.cutShort = finish;
  ctx.messages.push(message);
  ctx.emit('message', { message: recordedMessage(message, ctx.recordedCall) });
  return message;
}

// Where a stream's outcome goes: a wait (the call as middleware sees it), or a direct turn.
interface StreamSink {
  settle(response: ModelResponse): void;
  fail(error: unknown): void;
}

// A turn without middleware: the answer becomes the assistant message (and its events) before the
// loop's wait settles with it, so the loop resumes once. An answer (or failure) that comes after
// the signal aborted is dropped: the wait was rejected with the abort when it happened.
class DirectTurn implements StreamSink {
  readonly #ctx: LoopContext;
  readonly #request: ChatParams;
  readonly #started: number;
  readonly #wait: Wait<Message>;
  readonly #observation: ModelCallObservation | undefined;

  constructor(
    ctx: LoopContext,
    request: ChatParams,
    started: number,
    wait: Wait<Message>,
    observation: ModelCallObservation | undefined,
  ) {
    this.#ctx = ctx;
    this.#request = request;
    this.#started = started;
    this.#wait = wait;
    this.#observation = observation;
  }

  settle(response: ModelResponse): void {
    // One clock reading ends both the observed call and the usage event's duration.
    let ended: number | undefined;
    if (this.#observation) {
      ended = performance.now();
      endObservation(this.#observation, response, ended);
    }
    if (!this.#wait.release()) return;
    let message: Message;
    try {
      const hidden = hiddenAnswer(this.#ctx, response);
      message = appendAnswer(
        this.#ctx,
        hidden,
        answerUsage(this.#ctx, hidden),
        this.#request,
        this.#started,
        ended,
      );
    } catch (error) {
      this.#wait.fail(error);
      return;
    }
    this.#wait.settle(message);
  }

  fail(error: unknown): void {
    if (this.#observation) failObservation(this.#observation, this.#ctx, error);
    if (!this.#wait.release()) return;
    let failure: unknown;
    try {
      failure = turnError(this.#ctx, error, this.#request, this.#started);
    } catch (thrown) {
      failure = thrown;
    }
    this.#wait.fail(failure);
  }
}

// The model call as an action middleware can wrap (retry, timeout, logging). Each provider call
// the middleware makes is a model call: one that fails counts as a failed call as it fails, so a
// retry's attempts show in usage and count against the limits before the next one is made.
async function dispatchModelCall(
  ctx: LoopContext,
  request: ChatParams,
  started: number,
  attempts: CallAttempts,
): Promise<ModelResponse> {
  const dispatched = ctx.dispatch(action('model_call', ctx.agentName, { request }), async (current) => {
    if (current.type !== 'model_call') return current;
    const asked = current.payload.request;
    const attemptStarted = performance.now();
    attempts.start();
    let result: ModelResponse;
    try {
      result = await callProvider(ctx, asked, started);
    } catch (error) {
      if (attempts.failed()) countFailure(ctx, error, asked.model, attemptStarted);
      throw error;
    }
    attempts.succeeded();
    return { ...current, payload: { ...current.payload, response: result } };
  });
  const called = await abortable(dispatched, ctx.signal);
  if (called.type !== 'model_call' || !called.payload.response) {
    throw new AgentError('a middleware ended the model call without a response', 'MODEL_ERROR');
  }
  return called.payload.response;
}

// One provider call, seen by run observers when there are any (a retry middleware calling again
// makes a second one, which starts when it is made); without observers it is the bare stream.
function callProvider(ctx: LoopContext, request: ChatParams, started: number): Promise<ModelResponse> {
  const observation = observeCall(ctx, request, undefined);
  const wait = waitForCall<ModelResponse>(ctx, observation);
  if (!wait) return Promise.reject(abortError(ctx.signal));
  void streamModel(ctx, request, started, observation ? new ObservedCall(ctx, wait, observation) : wait);
  return wait.promise;
}

// Tells the run observers, if any, a provider call starts (a retry middleware calling again makes a
// second one).
function observeCall(
  ctx: LoopContext,
  request: ChatParams,
  started: number | undefined,
): ModelCallObservation | undefined {
  if (!observingRuns()) return undefined;
  return notifyModelCall({
    invocationId: ctx.invocationId,
    branch: ctx.branch,
    agent: ctx.agentName,
    provider: ctx.provider.name,
    request,
    started: started ?? performance.now(),
  });
}

// The wait a call's outcome settles; undefined when the run's signal stopped the call before it
// started: the provider is then not called, and the observation ends here.
function waitForCall<T>(
  ctx: LoopContext,
  observation: ModelCallObservation | undefined,
): Wait<T> | undefined {
  const wait = waitOn<T>(ctx.signal);
  if (!wait && observation) failObservation(observation, ctx, undefined);
  return wait;
}

// The observation is told the outcome by the stream reader, inside the call's own frame: a `then`
// on the call's promise would cost every observed call a promise, two closures and a turn of the
// queue. A call stopped by its run's signal ends as the provider stops it (every provider honours
// the signal), and is told as aborted.
class ObservedCall implements StreamSink {
  readonly #ctx: LoopContext;
  readonly #wait: Wait<ModelResponse>;
  readonly #observation: ModelCallObservation;

  constructor(ctx: LoopContext, wait: Wait<ModelResponse>, observation: ModelCallObservation) {
    this.#ctx = ctx;
    this.#wait = wait;
    this.#observation = observation;
  }

  settle(response: ModelResponse): void {
    endObservation(this.#observation, response, performance.now());
    this.#wait.settle(response);
  }

  fail(error: unknown): void {
    failObservation(this.#observation, this.#ctx, error);
    this.#wait.fail(error);
  }
}

function endObservation(observation: ModelCallObservation, response: ModelResponse, ended: number): void {
  try {
    observation.end(response, ended);
  } catch {
    // An observer's failure must not change the call it watches.
  }
}

// A call stopped by its run's signal is told as aborted, whatever the provider threw.
function failObservation(observation: ModelCallObservation, ctx: LoopContext, error: unknown): void {
  try {
    observation.fail(
      toAgentError(ctx.signal.aborted ? abortError(ctx.signal) : error, 'PROVIDER_ERROR'),
      performance.now(),
    );
  } catch {
    // An observer's failure must not change the call it watches.
  }
}

// `started` and `ended` are performance.now() readings; the duration is whole milliseconds.
function countUsage(
  ctx: LoopContext,
  usage: UsageStats,
  model: string,
  started: number,
  ended = performance.now(),
): void {
  addUsage(ctx.usage, usage);
  addUsage(ctx.agentUsage, usage);
  ctx.emit('usage', { usage, total: { ...ctx.usage }, model, duration: Math.round(ended - started) });
}

// A fallback chain left a model: its spent tokens count against it, and the switch is an event.
function countSwitch(ctx: LoopContext, change: ModelSwitch, started: number): void {
  countUsage(ctx, usageOfFailedCall(change.usage, change.pricing), change.from, started);
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

function showDelta(ctx: LoopContext, text: string): void {
  if (text.length === 0) return;
  ctx.emit('text_delta', { text });
  ctx.options.onToken?.(text);
}

// Reads the provider's stream to its final response and hands it (or the failure) to `sink`;
// never rejects. The stream is closed (its generator's cleanup awaited) before the sink hears.
async function streamModel(
  ctx: LoopContext,
  request: ChatParams,
  started: number,
  sink: StreamSink,
): Promise<void> {
  let response: ModelResponse | undefined;
  // A secret split across chunks is shown in none: each chunk's end that could begin one waits.
  const hiding = ctx.hiddenValues && !ctx.holdsAnswers ? new StreamedHiding(ctx.hiddenValues) : undefined;
  try {
    for await (const event of ctx.provider.stream(request)) {
      if (event.type === 'done') {
        response = event.response;
        if (hiding) showDelta(ctx, hiding.flush());
        break;
      }
      if (event.type === 'token') {
        // Held back when a middleware rewrites answers: the answer is shown after it, whole.
        if (event.text.length === 0 || ctx.holdsAnswers) continue;
        ctx.streamed = true;
        showDelta(ctx, hiding ? hiding.push(event.text) : event.text);
      } else if (event.type === 'fallback') countSwitch(ctx, event, started);
      else if (event.type === 'retry')
        countUsage(ctx, usageOfFailedCall(undefined), event.model ?? request.model, started);
      else if (event.type === 'error') throw event.error;
    }
  } catch (error) {
    sink.fail(error);
    return;
  }
  if (response) sink.settle(response);
  else {
    sink.fail(
      new AgentError(`model ${request.model} ended its stream without a final response`, 'MODEL_ERROR', {
        retryable: true,
      }),
    );
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
    const repaired = ensureToolResultsComplete(dropUnansweringResults(ctx.messages)).messages;
    // Whole: messages dropped moved the ones after them, `from` among them.
    const problem = findPairingProblem(repaired);
    if (problem !== undefined) {
      throw new AgentError(`the conversation is not a valid request: ${problem}`, 'MODEL_ERROR', {
        context: { agent: ctx.agentName },
      });
    }
    ctx.messages.splice(0, ctx.messages.length, ...repaired);
  }
  ctx.pairedUpTo = ctx.messages.length;
}
