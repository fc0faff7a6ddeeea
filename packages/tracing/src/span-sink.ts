import type { Attributes, AttributeValue, SpanKind, SpanStatus } from '@opentelemetry/api';
import type { ChatAnswer, ChatFacts } from './chat-facts.js';
import type { ToolFacts } from './tool-facts.js';

/** What {@link TraceObserver} does to a span once started: the part of the API's `Span` it uses. */
export interface SinkSpan {
  /** Adds or replaces one attribute. */
  setAttribute(key: string, value: AttributeValue): unknown;
  /** Sets the span's status. */
  setStatus(status: SpanStatus): unknown;
  /** Records a named event at the current time. */
  addEvent(name: string, attributes: Attributes): unknown;
  /** Ends the span: from then on it is the processor's. */
  end(): void;
}

/** A `chat` span, which ends with the model's answer (or, failed, with `end`). */
export interface ChatSpan extends SinkSpan {
  /** Records the answer and ends the span at `ended` (a `performance.now()` reading). */
  answer(answer: ChatAnswer, ended: number): void;
}

/** An `execute_tool` span, which ends with the call's duration as the runtime timed it. */
export interface ToolSpan extends SinkSpan {
  /** Ends the span as a call that ran `durationMs` up to now. */
  endAfter(durationMs: number): void;
}

/**
 * Where {@link TraceObserver} starts its spans: an OpenTelemetry `Tracer` (through `startSpan`) or
 * agentctl's own spans, batched as rows of a table. The parent is a span this sink started
 * (undefined: a new trace). Chat and tool spans, a run's many, are given their facts rather than
 * attributes: a sink makes the attributes when it needs them.
 */
export interface SpanSink<S extends SinkSpan = SinkSpan> {
  /** Starts a span under `parent` with these attributes (the span's to keep). */
  start(name: string, kind: SpanKind, attributes: Attributes, parent: S | undefined): S;
  /** Starts a `chat` span for a model call that started at `started` (a `performance.now()` reading). */
  startChat(name: string, facts: ChatFacts, started: number, parent: S | undefined): S & ChatSpan;
  /** Starts an `execute_tool` span for a call made at `calledAt` (epoch milliseconds). */
  startTool(name: string, facts: ToolFacts, calledAt: number, parent: S | undefined): S & ToolSpan;
}
