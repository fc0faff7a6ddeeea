import type { ApprovalDecision } from '../agent-config.js';
import { cutShort } from '../cut-short.js';
import { AgentError, type AgentErrorCode, toAgentError } from '../errors.js';
import type { PendingApproval } from '../events.js';
import { allowListeners } from '../listener-limit.js';
import { isImageContent, type Message, type ToolCall } from '../messages.js';
import type { ToolOutcome } from '../middleware/types.js';
import { classifyFailure } from '../retry-policy.js';
import { notifyToolCall, observingToolCalls, type ToolCallObservation } from '../run-observer.js';
import { type Deadline, deadline } from '../timing/deadline.js';
import type { AnyTool } from '../tool.js';
import { INVALID_RESULT, REFUSED_RESULT } from '../unrun-call.js';
import { abortable, abortError } from './abortable.js';
import { cappedResult } from './capped-result.js';
import { keptShapes } from './kept-shapes.js';
import { action, type LoopContext, review } from './loop-context.js';
import { policyOf, policyVerdict } from './policy-verdict.js';
import {
  compiledValidator,
  type SchemaCheck,
  type SchemaValidator,
  schemaValidator,
} from './schema-validator.js';
import { InputRequest, PauseRequest, ToolCallContext } from './tool-call-context.js';

type Plan = { call: ToolCall; tool?: AnyTool } & (
  | { kind: 'run'; approved?: boolean }
  | { kind: 'invalid'; text: string }
  | { kind: 'answer'; input: string }
  | { kind: 'refuse'; reason: string }
  | { kind: 'ask'; reason: string }
);

/**
 * Runs the calls of one model answer: decides approval, executes the allowed calls concurrently
 * (each with its timeout), appends their results in call order and returns the calls left
 * waiting for a human.
 */
export function executeToolCalls(
  ctx: LoopContext,
  calls: readonly ToolCall[],
): PendingApproval[] | Promise<PendingApproval[]> {
  if (calls.length !== 1) return executeMany(ctx, calls);
  // The common answer, one call of a synchronous tool whose validator is compiled, awaits nothing.
  const call = calls[0];
  announce(ctx, call);
  const planned = plan(ctx, call);
  return planned instanceof Promise ? planned.then((p) => executeOne(ctx, p)) : executeOne(ctx, planned);
}

function announce(ctx: LoopContext, call: ToolCall): void {
  ctx.emit('tool_call', { call: ctx.recordedCall(call) });
  // In-process, like the tool itself: the arguments as made.
  ctx.options.onToolCall?.(call.name, call.arguments);
}

function executeOne(ctx: LoopContext, planned: Plan): PendingApproval[] | Promise<PendingApproval[]> {
  const pending: PendingApproval[] = [];
  const only = settle(ctx, planned, pending);
  if (only instanceof Promise) {
    return only.then((outcome) => {
      addResult(ctx, planned, outcome);
      return paired(ctx, pending);
    });
  }
  addResult(ctx, planned, only);
  return paired(ctx, pending);
}

async function executeMany(ctx: LoopContext, calls: readonly ToolCall[]): Promise<PendingApproval[]> {
  const plans: Plan[] = [];
  for (const call of calls) {
    announce(ctx, call);
    const planned = plan(ctx, call);
    plans.push(planned instanceof Promise ? await planned : planned);
  }
  const pending: PendingApproval[] = [];
  allowListeners(ctx.signal, plans.length);
  const outcomes = await Promise.all(plans.map((p) => settle(ctx, p, pending)));
  for (let i = 0; i < plans.length; i++) addResult(ctx, plans[i], outcomes[i]);
  return paired(ctx, pending);
}

// A settled call's result joins the history in call order; a call waiting for a human adds nothing yet.
function addResult(ctx: LoopContext, planned: Plan, outcome: ToolOutcome | undefined): void {
  if (!outcome) return;
  const message = toolMessage(planned.call, outcome);
  ctx.messages.push(message);
  ctx.emit('message', { message });
}

function paired(ctx: LoopContext, pending: PendingApproval[]): PendingApproval[] {
  if (pending.length === 0) ctx.pairedUpTo = ctx.messages.length;
  return pending;
}

type Settled = ToolOutcome | undefined | Promise<ToolOutcome | undefined>;

// One planned call to its outcome; undefined when it waits for a human (then it is in `pending`).
// A call that runs a synchronous tool settles without a single await.
function settle(ctx: LoopContext, p: Plan, pending: PendingApproval[]): Settled {
  if (p.kind !== 'run') return settleDecided(ctx, p, pending);
  const outcome = runTool(ctx, p.call, p.tool, p.approved === true);
  return outcome instanceof Promise
    ? outcome.then((done) => afterRun(ctx, p, done, pending))
    : afterRun(ctx, p, outcome, pending);
}

async function settleDecided(
  ctx: LoopContext,
  p: Plan,
  pending: PendingApproval[],
): Promise<ToolOutcome | undefined> {
  if (p.kind === 'refuse') return finish(ctx, p.call, refusal(p.reason));
  if (p.kind === 'invalid')
    return finish(ctx, p.call, await failure(ctx, p.call, 'TOOL_VALIDATION_ERROR', p.text, 0));
  if (p.kind === 'answer') return finish(ctx, p.call, { content: p.input, isError: false, duration: 0 });
  if (p.kind === 'ask') {
    const decision = ctx.options.onApproval
      ? normalise(
          p.call.id,
          await ctx.options.onApproval({ call: p.call, agent: ctx.agentName, reason: p.reason }),
        )
      : undefined;
    if (!decision) {
      pending.push({
        call: p.call,
        agent: ctx.agentName,
        reason: p.reason,
        kind: 'approval',
        branch: ctx.branch,
      });
      return undefined;
    }
    if (!decision.approve) return finish(ctx, p.call, refusal(decision.reason ?? 'denied by the user'));
  }
  return afterRun(ctx, p, await runTool(ctx, p.call, p.tool, p.kind === 'ask'), pending);
}

// What a run call's outcome leads to: its result, or a pause (inner calls, or a question).
function afterRun(ctx: LoopContext, p: Plan, outcome: ToolOutcome, pending: PendingApproval[]): Settled {
  if (outcome.pausedOn) {
    // The call of this agent's that a resume runs again: for a call waiting deeper (an agent tool
    // inside an agent tool), this agent's own call, which resumes its child, which resumes its own.
    const via = { callId: p.call.id, agent: ctx.agentName, branch: ctx.branch };
    for (const inner of outcome.pausedOn) pending.push({ ...inner, via });
    return undefined;
  }
  if (outcome.needsInput === undefined) return outcome;
  return askForInput(ctx, p, outcome, outcome.needsInput, pending);
}

async function askForInput(
  ctx: LoopContext,
  p: Plan,
  outcome: ToolOutcome,
  question: string,
  pending: PendingApproval[],
): Promise<ToolOutcome | undefined> {
  const request: PendingApproval = {
    call: p.call,
    agent: ctx.agentName,
    reason: question,
    kind: 'input',
    branch: ctx.branch,
  };
  // Someone at hand (a terminal) answers now; otherwise the run pauses for an answer later.
  const answer = ctx.options.onApproval
    ? normalise(p.call.id, await ctx.options.onApproval(request))
    : undefined;
  if (!answer) {
    pending.push(request);
    return undefined;
  }
  if (!answer.approve) return finish(ctx, p.call, refusal(answer.reason ?? 'the user gave no answer'));
  return finish(ctx, p.call, { content: answer.input ?? '', isError: false, duration: outcome.duration });
}

// Synchronous when the tool's validator is compiled already: the common step awaits nothing here.
function plan(ctx: LoopContext, call: ToolCall): Plan | Promise<Plan> {
  const tool = ctx.tools.get(call.name);
  const decided = ctx.decisions.get(call.id);
  if (decided) {
    ctx.decisions.delete(call.id);
    if (decided.input !== undefined) return { kind: 'answer', call, tool, input: decided.input };
    if (!decided.approve)
      return { kind: 'refuse', call, tool, reason: decided.reason ?? 'denied by the user' };
    // Approved, but its tool was taken out of the agent while the call waited: it cannot run.
    if (!tool) return { kind: 'invalid', call, text: removedToolText(ctx, call) };
    // The project may have changed while the call waited: its arguments are checked against the
    // tool's schema of now, and deny beats everything, a person's approval included.
    return argumentsChecked(ctx, call, tool, true);
  }
  if (!tool) return unknownTool(ctx, call);
  if (call.malformedArguments !== undefined)
    return { kind: 'invalid', call, tool, text: malformedText(call) };
  // Arguments are checked before anyone is asked: an invalid call goes back to the model, unapproved.
  return argumentsChecked(ctx, call, tool, false);
}

// The plan once the call's arguments are checked against its tool's schema; `approved`: a person
// approved the call while it waited.
function argumentsChecked(
  ctx: LoopContext,
  call: ToolCall,
  tool: AnyTool,
  approved: boolean,
): Plan | Promise<Plan> {
  const compiled = compiledValidator(tool.parameters);
  if (compiled) return checkedPlan(ctx, call, tool, invalidText(call, compiled(call.arguments)), approved);
  return invalidArguments(call, tool).then((invalid) => checkedPlan(ctx, call, tool, invalid, approved));
}

function checkedPlan(
  ctx: LoopContext,
  call: ToolCall,
  tool: AnyTool,
  invalid: string | undefined,
  approved: boolean,
): Plan {
  if (invalid) return { kind: 'invalid', call, tool, text: invalid };
  // Only a deny rule overrules a person's approval.
  if (approved)
    return policyOf(ctx, call, tool) === 'deny'
      ? { kind: 'refuse', call, tool, reason: APPROVAL_OVERRULED }
      : { kind: 'run', call, tool, approved: true };
  const verdict = policyVerdict(ctx, call, tool);
  if (verdict === 'deny') return { kind: 'refuse', call, tool, reason: 'denied by the approval policy' };
  if (verdict === 'ask') return { kind: 'ask', call, tool, reason: `${call.name} requires approval` };
  return { kind: 'run', call, tool };
}

// Where an agent tool's child run failed, named from the top of the tree (` in agent a › b`).
function failedIn(error: unknown): string {
  const path = error instanceof AgentError ? error.agentPath : undefined;
  return path && path.length > 0 ? ` in agent ${path.join(' › ')}` : '';
}

function removedToolText(ctx: LoopContext, call: ToolCall): string {
  const known = [...ctx.tools.keys()].join(', ') || 'none';
  return `Tool "${call.name}" is no longer among the tools of agent ${ctx.agentName} (it was removed while this call waited for a decision), so the call did not run. Available tools: ${known}.`;
}

function unknownTool(ctx: LoopContext, call: ToolCall): Plan {
  const known = [...ctx.tools.keys()].join(', ') || 'none';
  // The model is told once; calling a missing tool again after that is its misbehaviour, not a loop to run to the limit.
  const turn = ctx.usage.iterations;
  if (ctx.toldUnknownTool >= 0 && ctx.toldUnknownTool !== turn) {
    throw new AgentError(
      `the model of agent ${ctx.agentName} called the unknown tool "${call.name}" again after being told the available tools (${known})`,
      'MODEL_ERROR',
      { context: { agent: ctx.agentName, model: ctx.model, tool: call.name, blame: 'model' } },
    );
  }
  ctx.toldUnknownTool = turn;
  return { kind: 'invalid', call, text: `Unknown tool "${call.name}". Available tools: ${known}.` };
}

async function invalidArguments(call: ToolCall, tool: AnyTool): Promise<string | undefined> {
  let validator: SchemaValidator;
  try {
    validator = await schemaValidator(tool.parameters);
  } catch (error) {
    // The tool's own schema is broken (an MCP server's, a module's): the call cannot be checked,
    // so it does not run, and the run goes on rather than failing as an internal error.
    return `Tool ${call.name} cannot be called: its parameters are not a valid JSON Schema (${(error as Error).message})`;
  }
  return invalidText(call, validator(call.arguments));
}

// What the model sent is shown (cut short), so it can see what to fix.
function malformedText(call: ToolCall): string {
  const sent = call.malformedArguments ?? '';
  return `${INVALID_RESULT}${call.name}: they must be a JSON object, got ${JSON.stringify(cutShort(sent, 200))}. Fix the arguments and call again.`;
}

function invalidText(call: ToolCall, check: SchemaCheck): string | undefined {
  if (check.ok) return undefined;
  return `${INVALID_RESULT}${call.name}: ${check.errors.join('; ')}. Fix the arguments and call again.`;
}

// Said to the model, and shown to the person who approved: their approval did not run the call.
const APPROVAL_OVERRULED = 'a deny rule matches it, and deny wins over an approval';

function normalise(
  callId: string,
  answer: ApprovalDecision | boolean | undefined,
): ApprovalDecision | undefined {
  return typeof answer === 'boolean' ? { callId, approve: answer } : answer;
}

function refusal(reason: string): ToolOutcome {
  return { content: `${REFUSED_RESULT} ${reason}.`, isError: true, duration: 0 };
}

type Outcome = ToolOutcome | Promise<ToolOutcome>;

// `approved`: a person approved the call (only deny rules judge where its paths lead).
function runTool(ctx: LoopContext, call: ToolCall, tool: AnyTool | undefined, approved: boolean): Outcome {
  const started = performance.now();
  const timeoutMs = tool?.timeout ?? ctx.limits.toolTimeout;
  const observation = observingToolCalls()
    ? notifyToolCall({
        invocationId: ctx.invocationId,
        branch: ctx.branch,
        agent: ctx.agentName,
        callId: call.id,
        name: call.name,
        tool,
        timeoutMs,
        started,
      })
    : undefined;
  if (!observation) return runTimedTool(ctx, call, tool, started, timeoutMs, approved);
  let outcome: Outcome;
  try {
    outcome = runTimedTool(ctx, call, tool, started, timeoutMs, approved);
  } catch (error) {
    endObservation(observation);
    throw error;
  }
  if (!(outcome instanceof Promise)) {
    endObservation(observation);
    return outcome;
  }
  return outcome.finally(() => endObservation(observation));
}

function endObservation(observation: ToolCallObservation): void {
  try {
    observation.end(performance.now());
  } catch {
    // An observer's failure must not change the call it watches.
  }
}

function runTimedTool(
  ctx: LoopContext,
  call: ToolCall,
  tool: AnyTool | undefined,
  started: number,
  timeoutMs: number,
  approved: boolean,
): Outcome {
  // The call's deadline (its signal and timer) is made only once the tool reads the signal or
  // returns a promise: a synchronous tool costs neither.
  const limit = new CallLimit(ctx.signal, call.name, timeoutMs, started);
  if (ctx.hasMiddleware) return runThroughMiddleware(ctx, call, tool, started, limit, approved);
  let outcome: Outcome;
  try {
    outcome = invoke(ctx, call, call, tool, started, limit, undefined, approved);
  } catch (error) {
    limit.dispose();
    return toolFailed(ctx, call, started, error);
  }
  if (outcome instanceof Promise) {
    return outcome.then(
      (done) => {
        limit.dispose();
        return finished(ctx, call, done);
      },
      (error: unknown) => {
        limit.dispose();
        return toolFailed(ctx, call, started, error);
      },
    );
  }
  limit.dispose();
  return finished(ctx, call, outcome);
}

async function runThroughMiddleware(
  ctx: LoopContext,
  call: ToolCall,
  tool: AnyTool | undefined,
  started: number,
  limit: Deadline,
  approved: boolean,
): Promise<ToolOutcome> {
  try {
    let outcome: ToolOutcome;
    try {
      // Raced against the run's signal: a middleware that never settles cannot keep the run from
      // being cancelled. (Not the call's deadline: at a timeout the chain settles on its own, with
      // the timed-out outcome the middleware saw.)
      const done = await abortable(
        ctx.dispatch(action('tool_call', ctx.agentName, { call, signal: limit.signal }), async (current) => {
          if (current.type !== 'tool_call' || current.payload.result) return current;
          const result = await invoke(
            ctx,
            current.payload.call,
            call,
            tool,
            started,
            limit,
            current.payload.signal,
            approved,
          );
          return { ...current, payload: { ...current.payload, result } };
        }),
        ctx.signal,
      );
      if (done.type !== 'tool_call' || !done.payload.result) {
        throw new AgentError('a middleware ended the tool call without a result', 'TOOL_EXECUTION_ERROR');
      }
      outcome = done.payload.result;
    } catch (error) {
      // A retryable failure no middleware retried (again) ends as the error result it carries.
      outcome =
        error instanceof RetryableToolFailure && !ctx.signal.aborted
          ? error.outcome
          : await toolFailed(ctx, call, started, error);
    }
    return finished(ctx, call, outcome);
  } finally {
    limit.dispose();
  }
}

// A failure of the call from outside the tool (a middleware's timeout or guard) is the tool's
// failure, reported to the model; a cancelled run is not.
function toolFailed(ctx: LoopContext, call: ToolCall, started: number, error: unknown): Promise<ToolOutcome> {
  if (ctx.signal.aborted) return Promise.reject(abortError(ctx.signal));
  const timedOut = error instanceof AgentError && error.code === 'TIMEOUT';
  const text = timedOut
    ? `Tool ${call.name} ${(error as AgentError).message}`
    : `Tool ${call.name} failed${failedIn(error)}: ${error instanceof Error ? error.message : String(error)}`;
  return failure(
    ctx,
    call,
    timedOut ? 'TIMEOUT' : 'TOOL_EXECUTION_ERROR',
    text,
    performance.now() - started,
    error,
  );
}

function finished(ctx: LoopContext, call: ToolCall, outcome: ToolOutcome): Outcome {
  return outcome.needsInput === undefined && !outcome.pausedOn ? finish(ctx, call, outcome) : outcome;
}

// `given` is the signal a middleware passed down; without middleware the call's signal is `limit`'s,
// made only if the tool reads it, and the wait races the call's timer and the run's signal instead.
function invoke(
  ctx: LoopContext,
  call: ToolCall,
  planned: ToolCall,
  tool: AnyTool | undefined,
  started: number,
  limit: Deadline,
  given: AbortSignal | undefined,
  approved: boolean,
): Outcome {
  if (!tool) {
    const known = [...ctx.tools.keys()].join(', ') || 'none';
    return failure(
      ctx,
      call,
      'TOOL_VALIDATION_ERROR',
      `Unknown tool "${call.name}". Available tools: ${known}.`,
      performance.now() - started,
    );
  }
  // Checked when planned; a middleware that rewrote the call gets its arguments checked again.
  if (call === planned) return execute(ctx, call, tool, started, limit, given, approved);
  return invalidArguments(call, tool).then((invalid) =>
    invalid
      ? failure(ctx, call, 'TOOL_VALIDATION_ERROR', invalid, performance.now() - started)
      : execute(ctx, call, tool, started, limit, given, approved),
  );
}

function execute(
  ctx: LoopContext,
  call: ToolCall,
  tool: AnyTool,
  started: number,
  limit: Deadline,
  given: AbortSignal | undefined,
  approved: boolean,
): Outcome {
  const context = new ToolCallContext(ctx, call, tool, limit, given, approved);
  keptShapes.call = context;
  try {
    const watched = given ?? ctx.signal;
    // A run cancelled before the call starts never starts it (a child process would outlive the run).
    watched.throwIfAborted();
    const value: unknown = tool.execute(call.arguments, context);
    if (isThenable(value))
      return awaitTool(ctx, call, started, limit, given, context, Promise.resolve(value));
    watched.throwIfAborted();
    return outcomeOf(call, value, performance.now() - started, context);
  } catch (error) {
    return caught(ctx, call, started, limit, given, error);
  }
}

async function awaitTool(
  ctx: LoopContext,
  call: ToolCall,
  started: number,
  limit: Deadline,
  given: AbortSignal | undefined,
  context: ToolCallContext,
  work: Promise<unknown>,
): Promise<ToolOutcome> {
  try {
    const value = await (given ? abortable(work, given) : abortable(limit.race(work), ctx.signal));
    return outcomeOf(call, value, performance.now() - started, context);
  } catch (error) {
    return caught(ctx, call, started, limit, given, error);
  }
}

// What a tool's throw (or rejection) means: a pause, a question, a timeout, a failure, or (the run
// was cancelled) nothing the model is told about.
function caught(
  ctx: LoopContext,
  call: ToolCall,
  started: number,
  limit: Deadline,
  given: AbortSignal | undefined,
  error: unknown,
): Outcome {
  const duration = performance.now() - started;
  if (error instanceof PauseRequest)
    return { content: '', isError: false, duration, pausedOn: error.pending };
  if (error instanceof InputRequest)
    return { content: '', isError: false, duration, needsInput: error.question };
  if (ctx.signal.aborted) throw abortError(ctx.signal);
  const signal = given ?? (limit.expired ? limit.signal : undefined);
  const timedOut =
    signal?.aborted === true && signal.reason instanceof AgentError && signal.reason.code === 'TIMEOUT';
  const code: AgentErrorCode = timedOut ? 'TIMEOUT' : 'TOOL_EXECUTION_ERROR';
  const message = timedOut
    ? (signal.reason as AgentError).message
    : `Tool ${call.name} failed${failedIn(error)}: ${error instanceof Error ? error.message : String(error)}`;
  // Under middleware (`given`), a failure a retry could fix rejects next(), so that a `retry`
  // middleware on tool calls can ask again; its error result goes with it.
  const info = given !== undefined && !timedOut ? classifyFailure(error) : undefined;
  if (info?.retryable) {
    return failure(ctx, call, code, message, duration, error, true).then((outcome) => {
      throw new RetryableToolFailure(outcome, toAgentError(error, code), info);
    });
  }
  return failure(ctx, call, code, message, duration, error);
}

/** A tool's failure that a retry could fix, thrown through the middleware with its error result. */
class RetryableToolFailure extends AgentError {
  constructor(
    readonly outcome: ToolOutcome,
    cause: AgentError,
    info: { status?: number; retryAfterMs?: number },
  ) {
    super(cause.message, cause.code, {
      cause,
      context: {
        ...cause.context,
        ...(info.status === undefined ? {} : { status: info.status }),
        ...(info.retryAfterMs === undefined ? {} : { retryAfterMs: info.retryAfterMs }),
      },
      retryable: true,
    });
  }
}

async function failure(
  ctx: LoopContext,
  call: ToolCall,
  code: AgentErrorCode,
  content: string,
  duration: number,
  cause?: unknown,
  retryable = false,
): Promise<ToolOutcome> {
  const error = cause === undefined ? new AgentError(content, code) : toAgentError(cause, code);
  await review(ctx, 'error', { source: 'tool', error, name: call.name, retryable });
  return { content, isError: true, errorCode: code, duration };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function outcomeOf(call: ToolCall, value: unknown, duration: number, context: ToolCallContext): ToolOutcome {
  const image = isImageContent(value);
  const content = image ? (value.text ?? '[image]') : stringify(value);
  if (content instanceof Error) {
    // A cycle or a BigInt: "[object Object]" would reach the model as if it were the answer.
    const text = `Tool ${call.name} returned a value that is not JSON: ${content.message}`;
    return { content: text, isError: true, errorCode: 'TOOL_EXECUTION_ERROR', duration };
  }
  const outcome: ToolOutcome = image
    ? { content, value, image: value, isError: false, duration }
    : { content, value, isError: false, duration };
  if (context.delta && Object.keys(context.delta).length > 0) outcome.stateDelta = context.delta;
  return outcome;
}

function stringify(value: unknown): string | Error {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    return error as Error;
  }
}

// Without middleware nothing can change the outcome, so nothing is awaited.
function finish(ctx: LoopContext, call: ToolCall, given: ToolOutcome): ToolOutcome | Promise<ToolOutcome> {
  // Cut before middleware sees it: a logging middleware would otherwise write the whole of it.
  const content = cappedResult(given.content, ctx.limits.maxToolResultBytes);
  const outcome = content === given.content ? given : { ...given, content };
  if (!ctx.hasMiddleware) return recordOutcome(ctx, call, outcome);
  return review(ctx, 'tool_result', { call, result: outcome }).then((reviewed) =>
    recordOutcome(ctx, call, reviewed.result),
  );
}

function recordOutcome(ctx: LoopContext, call: ToolCall, result: ToolOutcome): ToolOutcome {
  ctx.toolCalls.push({
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    result: result.isError ? result.content : result.value,
    isError: result.isError,
    duration: result.duration,
  });
  ctx.emit(
    'tool_result',
    {
      callId: call.id,
      name: call.name,
      content: result.content,
      isError: result.isError,
      errorCode: result.errorCode,
      duration: result.duration,
      hasImage: result.image ? true : undefined,
    },
    result.stateDelta,
  );
  ctx.options.onToolResult?.(call.name, result.isError ? result.content : result.value);
  return result;
}

// A tool call's time limit, made on first use, counting from the call's start: a synchronous tool
// that never reads its signal makes no deadline and no closure for its reason.
class CallLimit implements Deadline {
  readonly #outer: AbortSignal;
  readonly #name: string;
  readonly #ms: number;
  readonly #started: number;
  #made: Deadline | undefined;

  constructor(outer: AbortSignal, name: string, ms: number, started: number) {
    this.#outer = outer;
    this.#name = name;
    this.#ms = ms;
    this.#started = started;
  }

  #deadline(): Deadline {
    if (this.#made) return this.#made;
    const name = this.#name;
    const ms = this.#ms;
    this.#made = deadline(
      this.#outer,
      ms,
      () => new AgentError(`tool ${name} timed out after ${ms} ms`, 'TIMEOUT'),
      { startWhenUsed: true, startedAt: this.#started },
    );
    return this.#made;
  }

  get signal(): AbortSignal {
    return this.#deadline().signal;
  }

  get expired(): boolean {
    return this.#made?.expired ?? false;
  }

  restart(): void {
    this.#deadline().restart();
  }

  dispose(): void {
    this.#made?.dispose();
  }

  race<T>(work: Promise<T>): Promise<T> {
    return this.#deadline().race(work);
  }
}

function toolMessage(call: ToolCall, outcome: ToolOutcome): Message {
  const message: Message = { role: 'tool', toolCallId: call.id, name: call.name, content: outcome.content };
  if (outcome.isError) message.isError = true;
  if (outcome.image) message.image = outcome.image;
  return message;
}
