import type { Attributes, AttributeValue, SpanKind, SpanStatus } from '@opentelemetry/api';

/** What {@link TraceObserver} does to a span once started: the part of the API's `Span` it uses. */
export interface SinkSpan {
  /** Adds or replaces one attribute. */
  setAttribute(key: string, value: AttributeValue): unknown;
  /** Sets the span's status. */
  setStatus(status: SpanStatus): unknown;
  /** Records a named event at the current time. */
  addEvent(name: string, attributes: Attributes): unknown;
  /**
   * Ends the span, first adding `attributes` when given (what is known only at its end, in one
   * object rather than one call per attribute): from then on it is the processor's.
   */
  end(attributes?: Attributes): void;
}

/**
 * Where {@link TraceObserver} starts its spans: an OpenTelemetry `Tracer` (through `startSpan`) or
 * agentctl's own span records fed to an SDK span processor. The attributes object is the span's
 * to keep; the parent is a span this sink started (undefined: a new trace).
 */
export interface SpanSink<S extends SinkSpan = SinkSpan> {
  /** Starts a span under `parent` with these attributes. */
  start(name: string, kind: SpanKind, attributes: Attributes, parent: S | undefined): S;
}
