import { performance } from 'node:perf_hooks';
import {
  type Attributes,
  type AttributeValue,
  type HrTime,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { SampledSpan } from './sampled-span.js';
import type { SinkSpan } from './span-sink.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

/**
 * Where a record goes when it ends, and what it belongs to: what every record of one sink shares
 * (`SpanBatcher` is one).
 */
export interface RecordTarget {
  onEnd(span: ReadableSpan): void;
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NONE: never[] = Object.freeze([]) as never[];

// The clock of the SDK's spans: the time origin plus the monotonic clock, as [seconds, nanoseconds].
// `performance` is imported rather than the global one, which Node defines as a lazy getter: read
// on every clock reading.
/** The time origin in epoch milliseconds, read once (`performance.timeOrigin` is a getter). */
export const ORIGIN_MS = performance.timeOrigin;
const ORIGIN_S = Math.trunc(ORIGIN_MS / 1000);
const ORIGIN_NS = Math.round((ORIGIN_MS - ORIGIN_S * 1000) * 1e6);

/** A `performance.now()` reading as the SDK's span time: epoch [seconds, nanoseconds]. */
export function hrTimeAt(sinceOriginMs: number): HrTime {
  const s = Math.trunc(sinceOriginMs / 1000);
  const ns = ORIGIN_NS + Math.round((sinceOriginMs - s * 1000) * 1e6);
  return ns >= 1e9 ? [ORIGIN_S + s + 1, ns - 1e9] : [ORIGIN_S + s, ns];
}

/** Milliseconds as an OpenTelemetry duration, [seconds, nanoseconds]. */
export function hrDuration(ms: number): HrTime {
  const s = Math.trunc(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
}

/**
 * A span record in the SDK's `ReadableSpan` shape, for the few spans of a run agentctl makes as
 * objects (an invocation's, an agent's): the parent is set explicitly, and `end()` hands it to the
 * span processor once. The record is its own span context (it has the trace id, span id and flags),
 * and its attributes are the object it was started with, which attributes set later go into.
 */
export class SpanRecord extends SampledSpan implements ReadableSpan, SinkSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes;
  events: TimedEvent[] = NONE;
  status: SpanStatus = UNSET;
  readonly #target: RecordTarget;
  // `performance.now()` readings; the [seconds, nanoseconds] pairs are made when read.
  readonly #started: number;
  #ended = -1;

  /** `attributes` become the record's own, and grow with those set on it until it ends. */
  constructor(
    target: RecordTarget,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
  ) {
    super();
    this.#started = performance.now();
    this.name = name;
    this.kind = kind;
    this.attributes = attributes;
    this.traceId = traceId;
    this.spanId = spanId;
    this.parentSpanContext = parent;
    this.#target = target;
  }

  get resource(): Resource {
    return this.#target.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.#target.scope;
  }

  get ended(): boolean {
    return this.#ended !== -1;
  }

  get startTime(): HrTime {
    return hrTimeAt(this.#started);
  }

  /** The end; before `end()`, the start. */
  get endTime(): HrTime {
    return hrTimeAt(this.#ended === -1 ? this.#started : this.#ended);
  }

  get duration(): HrTime {
    return hrDuration(this.#ended === -1 ? 0 : this.#ended - this.#started);
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.#ended === -1) this.attributes[key] = value;
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.#ended === -1) this.status = status;
    return this;
  }

  addEvent(name: string, attributes: Attributes): this {
    if (this.#ended !== -1) return this;
    if (this.events === NONE) this.events = [];
    this.events.push({ name, attributes, time: hrTimeAt(performance.now()), droppedAttributesCount: 0 });
    return this;
  }

  /** Reads the clock and hands the record to the span processor (once). */
  end(): void {
    if (this.#ended !== -1) return;
    this.#ended = performance.now();
    this.#target.onEnd(this);
  }
}
