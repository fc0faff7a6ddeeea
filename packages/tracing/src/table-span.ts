import type { Attributes, HrTime, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { SampledSpan } from './sampled-span.js';
import { hrDuration, hrTimeAt } from './span-record.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

const NONE: never[] = Object.freeze([]) as never[];

/**
 * A `chat` or `execute_tool` span as the exporter is handed it: made from its row of a
 * {@link SpanTable} when the batch is exported, complete and never changed. It is its own span
 * context (trace id, span id and flags); its times are kept as clock readings and made
 * [seconds, nanoseconds] pairs when read.
 */
export class TableSpan extends SampledSpan implements ReadableSpan {
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
    super();
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
}
