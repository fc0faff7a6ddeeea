import {
  type AgentError,
  type AgentEvent,
  findAgent,
  type ModelCallObservation,
  type ModelResponse,
  type ObservedInvocation,
  type ObservedModelCall,
  type RunObserver,
} from '@agentctl/core';
import { type Attributes, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { AGENTCTL, GEN_AI, providerName } from './gen-ai.js';
import { inputMessages, outputMessages, systemInstructions } from './message-parts.js';
import type { SinkSpan, SpanSink } from './span-sink.js';
import { TracerSink } from './tracer-sink.js';

/** Options of a {@link TraceObserver}. */
export interface TraceObserverOptions {
  /** Record prompts, answers, tool arguments and results (opt-in: they may hold personal data). */
  captureContent?: boolean;
  /** Applied to every recorded text: removes secret values. */
  scrub?: (text: string) => string;
}

interface OpenInvocation {
  span: SinkSpan;
  info: ObservedInvocation;
  /** Open agent spans per branch (a loop reruns a branch; only one run of it is open at a time). */
  open: Map<string, SinkSpan[]>;
  /** The latest agent span of each branch, open or ended: the parent of what it handed over to. */
  latest: Map<string, SinkSpan>;
  tools: Map<string, SinkSpan>;
  error?: { code: string; message: string };
}

// A project has a few span names (an operation and a model, tool or agent name): each is made once
// rather than per span. Bounded, as tool names come from the model.
const NAMES = new Map<string, Map<string, string>>();
function spanName(operation: string, subject: string): string {
  let names = NAMES.get(operation);
  if (!names) {
    names = new Map();
    NAMES.set(operation, names);
  }
  let name = names.get(subject);
  if (name === undefined) {
    name = `${operation} ${subject}`;
    if (names.size < 1000) names.set(subject, name);
  }
  return name;
}

// One finish-reasons array per reason, shared by the spans (attribute values are never mutated).
const FINISH_REASONS = new Map<string, string[]>();
function finishReasons(reason: string): string[] {
  let list = FINISH_REASONS.get(reason);
  if (!list) {
    list = [reason];
    FINISH_REASONS.set(reason, list);
  }
  return list;
}

/** How one model call's `chat` span ends: one object per call rather than two closures. */
class ChatObservation implements ModelCallObservation {
  readonly #observer: TraceObserver;
  readonly #span: SinkSpan;
  readonly #model: string;

  constructor(observer: TraceObserver, span: SinkSpan, model: string) {
    this.#observer = observer;
    this.#span = span;
    this.#model = model;
  }

  end(response: ModelResponse): void {
    const span = this.#span;
    const usage = response.usage;
    const cacheRead = usage.cacheReadTokens ?? 0;
    const cacheWrite = usage.cacheWriteTokens ?? 0;
    // One object for what the answer tells, rather than six attribute stores into the span's
    // attributes (which would grow them a second storage block): a record merges it when exported.
    const answered: Attributes = {
      [GEN_AI.responseModel]: response.model ?? this.#model,
      [GEN_AI.finishReasons]: finishReasons(response.finishReason ?? 'stop'),
      // The conventions count cached input inside the input tokens; agentctl keeps them apart.
      [GEN_AI.inputTokens]: usage.inputTokens + cacheRead + cacheWrite,
      [GEN_AI.outputTokens]: usage.outputTokens,
      [GEN_AI.cacheReadTokens]: cacheRead,
      [GEN_AI.cacheCreationTokens]: cacheWrite,
    };
    this.#observer.chatEnded(answered, response);
    span.end(answered);
  }

  fail(error: AgentError): void {
    this.#observer.fail(this.#span, { code: error.code, message: error.message });
    this.#span.end();
  }
}

const WORKFLOW_TYPES = new Set(['sequential', 'parallel', 'loop']);

/**
 * Turns the runs of the process into OpenTelemetry spans following the GenAI conventions: one span
 * per invocation, `invoke_agent NAME` (or `invoke_workflow NAME`) per agent run, `chat MODEL` per
 * model call and `execute_tool NAME` per tool call, each under the agent that made it.
 */
export class TraceObserver implements RunObserver {
  readonly #sink: SpanSink;
  readonly #capture: boolean;
  readonly #scrub: (text: string) => string;
  readonly #invocations = new Map<string, OpenInvocation>();

  /** Spans go through `tracer.startSpan`, or to a {@link SpanSink} (agentctl's own records). */
  constructor(target: Tracer | SpanSink, options: TraceObserverOptions = {}) {
    // A sink is given back, as parents, only the spans it made.
    this.#sink = 'startSpan' in target ? new TracerSink(target) : target;
    this.#capture = options.captureContent ?? false;
    this.#scrub = options.scrub ?? ((text) => text);
  }

  /** Starts, annotates and ends spans as the invocation's events arrive. */
  event(event: AgentEvent, info: ObservedInvocation): void {
    const type = event.type;
    if (type === 'run_start') {
      this.#startInvocation(info);
      return;
    }
    // Most events of a step (messages, usage, text) make no span: no lookup for them.
    if (type === 'message' || type === 'usage' || type === 'text_delta') return;
    const inv = this.#invocations.get(info.invocationId);
    if (!inv) return;
    switch (event.type) {
      case 'agent_start':
        this.#startAgent(inv, event.agent, event.branch);
        break;
      case 'agent_end':
        inv.open.get(event.branch)?.pop()?.end();
        break;
      case 'transfer':
        this.#agentSpan(inv, event.branch)?.addEvent('transfer', { [AGENTCTL.transferTo]: event.to });
        break;
      case 'tool_call':
        this.#startTool(inv, event.call.id, event.call.name, event.call.arguments, event.branch);
        break;
      case 'tool_result':
        this.#endTool(inv, event.callId, event.isError, event.errorCode, event.content);
        break;
      case 'error':
        inv.error = { code: event.code, message: event.message };
        break;
      case 'run_end':
        this.#endInvocation(inv, event.status, event.usage);
        break;
      default:
        break;
    }
  }

  /** Starts a `chat MODEL` span under the calling agent's span. */
  modelCall(call: ObservedModelCall): ModelCallObservation | undefined {
    const inv = this.#invocations.get(call.invocationId);
    const { request } = call;
    const attributes: Attributes = {
      [GEN_AI.operation]: 'chat',
      [GEN_AI.provider]: providerName(call.provider),
      [GEN_AI.requestModel]: request.model,
      [GEN_AI.agentName]: call.agent,
    };
    // Unset settings are left out rather than set to undefined, which is no attribute value.
    if (request.temperature !== undefined) attributes[GEN_AI.requestTemperature] = request.temperature;
    if (request.topP !== undefined) attributes[GEN_AI.requestTopP] = request.topP;
    if (request.maxOutputTokens !== undefined) attributes[GEN_AI.requestMaxTokens] = request.maxOutputTokens;
    if (inv) attributes[GEN_AI.conversationId] = inv.info.sessionId;
    // The history array grows after the call: what was sent is read now.
    if (this.#capture) {
      if (request.system)
        attributes[GEN_AI.systemInstructions] = this.#json(systemInstructions(request.system));
      attributes[GEN_AI.inputMessages] = this.#json(inputMessages(request.messages));
    }
    const span = this.#sink.start(
      spanName('chat', request.model),
      SpanKind.CLIENT,
      attributes,
      inv ? this.#parentOf(inv, call.branch) : undefined,
    );
    return new ChatObservation(this, span, request.model);
  }

  /** The answer of a model call, among the attributes its span ends with, when content is recorded. */
  chatEnded(answered: Attributes, response: ModelResponse): void {
    if (this.#capture) answered[GEN_AI.outputMessages] = this.#json(outputMessages(response));
  }

  /** Marks a span failed with agentctl's error code (`error.type`) and the scrubbed message. */
  fail(span: SinkSpan, error: { code: string; message?: string }): void {
    span.setAttribute(GEN_AI.errorType, error.code);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(error.message === undefined ? {} : { message: this.#scrub(error.message) }),
    });
  }

  #startInvocation(info: ObservedInvocation): void {
    const caller = info.parent && this.#toolSpan(info.parent.sessionId, info.parent.callId);
    const attributes: Attributes = {
      [GEN_AI.agentName]: info.agent.name,
      [GEN_AI.conversationId]: info.sessionId,
      [AGENTCTL.invocationId]: info.invocationId,
      [AGENTCTL.sessionId]: info.sessionId,
    };
    const span = this.#sink.start(
      spanName('invocation', info.agent.name),
      SpanKind.INTERNAL,
      attributes,
      caller,
    );
    this.#invocations.set(info.invocationId, {
      span,
      info,
      open: new Map(),
      latest: new Map(),
      tools: new Map(),
    });
  }

  #startAgent(inv: OpenInvocation, name: string, branch: string): void {
    const agent = findAgent(inv.info.agent, name);
    const type = agent?.type ?? 'llm';
    const operation = WORKFLOW_TYPES.has(type) ? 'invoke_workflow' : 'invoke_agent';
    const attributes: Attributes = {
      [GEN_AI.operation]: operation,
      [GEN_AI.agentName]: name,
      [GEN_AI.conversationId]: inv.info.sessionId,
      [AGENTCTL.agentType]: type,
      [AGENTCTL.branch]: branch,
    };
    if (agent?.description) attributes[GEN_AI.agentDescription] = agent.description;
    // A sub-agent, a workflow step or a transfer target sits under the agent of the enclosing branch.
    const dot = branch.lastIndexOf('.');
    const above = dot > 0 ? inv.latest.get(branch.slice(0, dot)) : undefined;
    const span = this.#sink.start(
      spanName(operation, name),
      SpanKind.INTERNAL,
      attributes,
      above ?? inv.span,
    );
    const stack = inv.open.get(branch);
    if (stack) stack.push(span);
    else inv.open.set(branch, [span]);
    inv.latest.set(branch, span);
  }

  #startTool(inv: OpenInvocation, id: string, name: string, args: unknown, branch: string): void {
    const attributes: Attributes = {
      [GEN_AI.operation]: 'execute_tool',
      [GEN_AI.toolName]: name,
      [GEN_AI.toolCallId]: id,
      [GEN_AI.toolType]: 'function',
    };
    if (this.#capture) attributes[GEN_AI.toolArguments] = this.#json(args);
    const span = this.#sink.start(
      spanName('execute_tool', name),
      SpanKind.INTERNAL,
      attributes,
      this.#parentOf(inv, branch),
    );
    inv.tools.set(id, span);
  }

  #endTool(
    inv: OpenInvocation,
    id: string,
    isError: boolean,
    code: string | undefined,
    content: string,
  ): void {
    const span = inv.tools.get(id);
    if (!span) return;
    inv.tools.delete(id);
    if (this.#capture) span.setAttribute(GEN_AI.toolResult, this.#scrub(content));
    if (isError) this.fail(span, { code: code ?? 'TOOL_EXECUTION_ERROR' });
    span.end();
  }

  #endInvocation(
    inv: OpenInvocation,
    status: string,
    usage: { inputTokens: number; outputTokens: number },
  ): void {
    this.#invocations.delete(inv.info.invocationId);
    // A paused call has no result yet; a failed run leaves its agents open: both end here.
    for (const span of inv.tools.values()) {
      span.setAttribute(AGENTCTL.status, status === 'paused' ? 'paused' : 'unfinished');
      if (inv.error) this.fail(span, inv.error);
      span.end();
    }
    const open = [...inv.open.values()].flat().reverse();
    for (const span of open) {
      if (inv.error) this.fail(span, inv.error);
      span.end();
    }
    inv.span.setAttribute(AGENTCTL.status, status);
    inv.span.setAttribute(AGENTCTL.totalInputTokens, usage.inputTokens);
    inv.span.setAttribute(AGENTCTL.totalOutputTokens, usage.outputTokens);
    if (inv.error) this.fail(inv.span, inv.error);
    inv.span.end();
  }

  #agentSpan(inv: OpenInvocation, branch: string): SinkSpan | undefined {
    return inv.open.get(branch)?.at(-1);
  }

  #parentOf(inv: OpenInvocation, branch: string): SinkSpan {
    return this.#agentSpan(inv, branch) ?? inv.span;
  }

  // An agent tool's child invocation starts under the call that runs it, in the caller's session.
  #toolSpan(sessionId: string, callId: string): SinkSpan | undefined {
    for (const inv of this.#invocations.values()) {
      const span = inv.info.sessionId === sessionId ? inv.tools.get(callId) : undefined;
      if (span) return span;
    }
    return undefined;
  }

  #json(value: unknown): string {
    return this.#scrub(JSON.stringify(value));
  }
}
