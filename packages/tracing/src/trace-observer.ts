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
import { type ContentRecorder, chatAnswer, chatFacts } from './chat-facts.js';
import { AGENTCTL, GEN_AI } from './gen-ai.js';
import type { ChatSpan, SinkSpan, SpanSink, ToolSpan } from './span-sink.js';
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
  /** The parent of the latest branch asked for: a step's model call and tool calls share it. */
  parentBranch: string | undefined;
  parent: SinkSpan | undefined;
  /**
   * Open tool calls: ids and spans at the same index. Arrays rather than a Map: a step opens and
   * closes one call, and a Map that goes from one entry to none reallocates its table every time.
   */
  toolIds: string[];
  toolSpans: ToolSpan[];
  error?: { code: string; message: string };
}

// A project has a few span names (an operation and a model, tool or agent name): each is made once
// rather than per span, and the latest one of an operation is at hand without a lookup (a run's
// steps mostly call the same model and tools). Bounded, as tool names come from the model.
class SpanNames {
  readonly #operation: string;
  readonly #names = new Map<string, string>();
  #subject = '';
  #name = '';

  constructor(operation: string) {
    this.#operation = operation;
  }

  of(subject: string): string {
    if (subject === this.#subject) return this.#name;
    let name = this.#names.get(subject);
    if (name === undefined) {
      name = `${this.#operation} ${subject}`;
      if (this.#names.size < 1000) this.#names.set(subject, name);
    }
    this.#subject = subject;
    this.#name = name;
    return name;
  }
}

const NAMES = new Map<string, SpanNames>();
function spanNames(operation: string): SpanNames {
  let names = NAMES.get(operation);
  if (!names) {
    names = new SpanNames(operation);
    NAMES.set(operation, names);
  }
  return names;
}
const CHAT_NAMES = spanNames('chat');
const TOOL_NAMES = spanNames('execute_tool');

/** How one model call's `chat` span ends: one object per call rather than two closures. */
class ChatObservation implements ModelCallObservation {
  readonly #observer: TraceObserver;
  readonly #span: ChatSpan;
  readonly #model: string;

  constructor(observer: TraceObserver, span: ChatSpan, model: string) {
    this.#observer = observer;
    this.#span = span;
    this.#model = model;
  }

  end(response: ModelResponse, ended: number): void {
    this.#span.answer(chatAnswer(response, this.#model, this.#observer.recorder), ended);
  }

  // A failed call is rare: its span reads the clock as it ends.
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
  readonly #scrub: (text: string) => string;
  readonly #invocations = new Map<string, OpenInvocation>();
  /** Records content as scrubbed JSON; undefined unless content is captured. */
  readonly recorder: ContentRecorder | undefined;
  // The invocation of the latest lookup: the events of a step mostly come from one.
  #last: OpenInvocation | undefined;
  // The last observation, kept alive so that its class (and the code optimized on it) outlives a
  // full collection between bursts of runs (as the table sink keeps its last spans).
  #lastObservation: ChatObservation | undefined;

  /** Spans go through `tracer.startSpan`, or to a {@link SpanSink} (agentctl's own spans). */
  constructor(target: Tracer | SpanSink, options: TraceObserverOptions = {}) {
    // A sink is given back, as parents, only the spans it made.
    this.#sink = 'startSpan' in target ? new TracerSink(target) : target;
    this.#scrub = options.scrub ?? ((text) => text);
    this.recorder = options.captureContent ? (value) => this.#json(value) : undefined;
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
    const inv = this.#invocation(info.invocationId);
    if (!inv) return;
    switch (event.type) {
      case 'agent_start':
        this.#startAgent(inv, event.agent, event.branch);
        break;
      case 'agent_end':
        inv.parentBranch = undefined;
        inv.open.get(event.branch)?.pop()?.end();
        break;
      case 'transfer':
        this.#agentSpan(inv, event.branch)?.addEvent('transfer', { [AGENTCTL.transferTo]: event.to });
        break;
      case 'tool_call':
        this.#startTool(inv, event.call.id, event.call.name, event.call.arguments, event.branch, event.time);
        break;
      case 'tool_result':
        this.#endTool(inv, event.callId, event.isError, event.errorCode, event.content, event.duration);
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
    const inv = this.#invocation(call.invocationId);
    const facts = chatFacts(call, inv?.info.sessionId, this.recorder);
    const span = this.#sink.startChat(
      CHAT_NAMES.of(facts.requestModel),
      facts,
      call.started,
      inv ? this.#parentOf(inv, call.branch) : undefined,
    );
    this.#lastObservation = new ChatObservation(this, span, facts.requestModel);
    return this.#lastObservation;
  }

  /**
   * Marks a span failed with agentctl's error code (`error.type`); the scrubbed message too when
   * content is captured.
   */
  fail(span: SinkSpan, error: { code: string; message?: string }): void {
    span.setAttribute(GEN_AI.errorType, error.code);
    // A message may quote the prompt, the answer or a tool's arguments (a JSON parse error, a
    // replay's diff, a provider echoing its input): it is content, recorded only when opted in.
    const message = this.recorder && error.message !== undefined ? this.#scrub(error.message) : undefined;
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
  }

  #startInvocation(info: ObservedInvocation): void {
    const caller = info.parent && this.#toolSpan(info.parent.sessionId, info.parent.callId);
    // Keys written out, as in every span's attributes (a literal with computed keys costs more).
    const attributes: Attributes = {
      'gen_ai.agent.name': info.agent.name,
      'gen_ai.conversation.id': info.sessionId,
      'agentctl.invocation.id': info.invocationId,
      'agentctl.session.id': info.sessionId,
    };
    const span = this.#sink.start(
      spanNames('invocation').of(info.agent.name),
      SpanKind.INTERNAL,
      attributes,
      caller,
    );
    this.#invocations.set(info.invocationId, {
      span,
      info,
      open: new Map(),
      latest: new Map(),
      parentBranch: undefined,
      parent: undefined,
      toolIds: [],
      toolSpans: [],
    });
  }

  #startAgent(inv: OpenInvocation, name: string, branch: string): void {
    const agent = findAgent(inv.info.agent, name);
    const type = agent?.type ?? 'llm';
    const operation = WORKFLOW_TYPES.has(type) ? 'invoke_workflow' : 'invoke_agent';
    const attributes: Attributes = {
      'gen_ai.operation.name': operation,
      'gen_ai.agent.name': name,
      'gen_ai.conversation.id': inv.info.sessionId,
      'agentctl.agent.type': type,
      'agentctl.branch': branch,
    };
    if (agent?.description) attributes[GEN_AI.agentDescription] = agent.description;
    // A sub-agent, a workflow step or a transfer target sits under the agent of the enclosing branch.
    const dot = branch.lastIndexOf('.');
    const above = dot > 0 ? inv.latest.get(branch.slice(0, dot)) : undefined;
    const span = this.#sink.start(
      spanNames(operation).of(name),
      SpanKind.INTERNAL,
      attributes,
      above ?? inv.span,
    );
    inv.parentBranch = undefined;
    const stack = inv.open.get(branch);
    if (stack) stack.push(span);
    else inv.open.set(branch, [span]);
    inv.latest.set(branch, span);
  }

  #startTool(
    inv: OpenInvocation,
    id: string,
    name: string,
    args: unknown,
    branch: string,
    calledAt: number,
  ): void {
    const facts = { toolName: name, callId: id, args: this.recorder?.(args) };
    const span = this.#sink.startTool(TOOL_NAMES.of(name), facts, calledAt, this.#parentOf(inv, branch));
    inv.toolIds.push(id);
    inv.toolSpans.push(span);
  }

  #endTool(
    inv: OpenInvocation,
    id: string,
    isError: boolean,
    code: string | undefined,
    content: string,
    duration: number,
  ): void {
    const at = inv.toolIds.indexOf(id);
    if (at < 0) return;
    const span = inv.toolSpans[at] as ToolSpan;
    // The last call opened is most often the one that ends: then nothing moves.
    const last = inv.toolIds.length - 1;
    if (at !== last) {
      inv.toolIds[at] = inv.toolIds[last] as string;
      inv.toolSpans[at] = inv.toolSpans[last] as ToolSpan;
    }
    inv.toolIds.pop();
    inv.toolSpans.pop();
    if (this.recorder) span.setAttribute(GEN_AI.toolResult, this.#scrub(content));
    // An error result without a code is a call refused (a person's or a rule's deny, a question
    // left unanswered): it never ran, so no tool failed, and a backend counting tool errors must not
    // count it as one.
    if (isError && code === undefined) span.setAttribute(AGENTCTL.status, 'refused');
    else if (isError && code !== undefined) this.fail(span, { code });
    span.endAfter(duration);
  }

  #endInvocation(
    inv: OpenInvocation,
    status: string,
    usage: { inputTokens: number; outputTokens: number },
  ): void {
    this.#invocations.delete(inv.info.invocationId);
    if (this.#last === inv) this.#last = undefined;
    // A paused call has no result yet; a failed run leaves its agents open: both end here.
    for (const span of inv.toolSpans) {
      span.setAttribute(AGENTCTL.status, status === 'paused' ? 'paused' : 'unfinished');
      if (inv.error) this.fail(span, inv.error);
      span.end();
    }
    // Agents that ended have left their stacks empty: only a failed run has spans to end here.
    const open: SinkSpan[] = [];
    for (const stack of inv.open.values()) if (stack.length > 0) open.push(...stack);
    for (const span of open.reverse()) {
      if (inv.error) this.fail(span, inv.error);
      span.end();
    }
    inv.span.setAttribute(AGENTCTL.status, status);
    inv.span.setAttribute(AGENTCTL.totalInputTokens, usage.inputTokens);
    inv.span.setAttribute(AGENTCTL.totalOutputTokens, usage.outputTokens);
    if (inv.error) this.fail(inv.span, inv.error);
    inv.span.end();
  }

  #invocation(id: string): OpenInvocation | undefined {
    const last = this.#last;
    if (last !== undefined && last.info.invocationId === id) return last;
    const inv = this.#invocations.get(id);
    if (inv !== undefined) this.#last = inv;
    return inv;
  }

  #agentSpan(inv: OpenInvocation, branch: string): SinkSpan | undefined {
    return inv.open.get(branch)?.at(-1);
  }

  #parentOf(inv: OpenInvocation, branch: string): SinkSpan {
    if (inv.parentBranch === branch) return inv.parent as SinkSpan;
    const parent = this.#agentSpan(inv, branch) ?? inv.span;
    inv.parentBranch = branch;
    inv.parent = parent;
    return parent;
  }

  // An agent tool's child invocation starts under the call that runs it, in the caller's session.
  #toolSpan(sessionId: string, callId: string): SinkSpan | undefined {
    for (const inv of this.#invocations.values()) {
      const at = inv.info.sessionId === sessionId ? inv.toolIds.indexOf(callId) : -1;
      if (at >= 0) return inv.toolSpans[at];
    }
    return undefined;
  }

  // Each string is scrubbed before JSON escapes it: a secret holding a quote, a backslash or a
  // control character is spelled otherwise in the JSON text, where the scrubber would miss it.
  #json(value: unknown): string {
    return this.#scrub(
      JSON.stringify(value, (_key, item) => (typeof item === 'string' ? this.#scrub(item) : item)),
    );
  }
}
