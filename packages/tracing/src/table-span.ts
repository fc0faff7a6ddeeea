import {
  type Attributes,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  TraceFlags,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { hrDuration, hrTimeAt } from './span-record.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

const NONE: never[] = Object.freeze([]) as never[];

/**
 * A `chat` or `execute_tool` span as the exporter is handed it: made from its row of a
 * {@link SpanTable} when the batch is exported, complete and never changed. It is its own span
 * context (trace id, span id and flags); its times are kept as clock readings and made
 * [seconds, nanoseconds] pairs when read.
 */
export class TableSpan implements ReadableSpan, SpanContext {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes;
  readonly status: SpanStatus;
  readonly events: TimedEvent[];
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly #started: number;
  readonly #ended: number;

  /** `startedMs` and `endedMs` are `performance.now()` readings. */
  constructor(
    name: string,
    kind: SpanKind,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
    startedMs: number,
    endedMs: number,
    attributes: Attributes,
    status: SpanStatus,
    events: TimedEvent[] | undefined,
    resource: Resource,
    scope: InstrumentationScope,
  ) {
    this.name = name;
    this.kind = kind;
    this.traceId = traceId;
    this.spanId = spanId;
    this.parentSpanContext = parent;
    this.#started = startedMs;
    this.#ended = endedMs;
    this.attributes = attributes;
    this.status = status;
    this.events = events ?? NONE;
    this.resource = resource;
    this.instrumentationScope = scope;
  }

  get traceFlags(): number {
    return TraceFlags.SAMPLED;
  }

  /** The span's trace id, span id and flags: the span itself. */
  spanContext(): SpanContext {
    return this;
  }

  get startTime(): HrTime {
    return hrTimeAt(this.#started);
  }

  get endTime(): HrTime {
    return hrTimeAt(this.#ended);
  }

  get duration(): HrTime {
    return hrDuration(this.#ended - this.#started);
  }

  get ended(): boolean {
    return true;
  }

  get links(): Link[] {
    return NONE;
  }

  get droppedAttributesCount(): number {
    return 0;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }
}
