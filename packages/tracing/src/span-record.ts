import { performance } from 'node:perf_hooks';
import {
  type Attributes,
  type AttributeValue,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  TraceFlags,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { SinkSpan } from './span-sink.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

/** What every span of one record sink shares: where it ends up and what it belongs to. */
export interface RecordTarget {
  processor: SpanProcessor;
  resource: Resource;
  scope: InstrumentationScope;
}

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NONE: never[] = Object.freeze([]) as never[];

// `performance` imported rather than the global one, which Node defines as a lazy getter: read on
// every clock reading, twice per span.
// The clock of the SDK's spans: the time origin plus the monotonic clock, as [seconds, nanoseconds].
/** The time origin in epoch milliseconds, read once (`performance.timeOrigin` is a getter). */
export const ORIGIN_MS = performance.timeOrigin;
const ORIGIN_S = Math.trunc(ORIGIN_MS / 1000);
const ORIGIN_NS = Math.round((ORIGIN_MS - ORIGIN_S * 1000) * 1e6);

function hrTimeAt(sinceOriginMs: number): HrTime {
  const s = Math.trunc(sinceOriginMs / 1000);
  const ns = ORIGIN_NS + Math.round((sinceOriginMs - s * 1000) * 1e6);
  return ns >= 1e9 ? [ORIGIN_S + s + 1, ns - 1e9] : [ORIGIN_S + s, ns];
}

// Clock readings kept as whole microseconds since an epoch shared by the records of ten minutes:
// small integers, stored in the record itself, where a fractional millisecond reading would be one
// more object per reading for the collector to copy while the record waits for its batch.
interface Epoch {
  readonly ms: number;
}
const EPOCH_US = 600_000_000;
let epoch: Epoch = { ms: performance.now() };

function hrDuration(ms: number): HrTime {
  const s = Math.trunc(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
}

/**
 * A span record in the SDK's `ReadableSpan` shape, made by agentctl's own tracing: the parent is set
 * explicitly, and `end()` hands it to the SDK's span processor once. The record is its own span
 * context (it has the trace id, span id and flags), which saves an object per span. What it records
 * is kept as the facts it was given and made into attributes only when they are read, by the
 * exporter (one object, made once and short-lived, rather than one kept from the span's start and
 * grown at its end); each kind of span says how, in `ownAttributes`.
 */
export abstract class SpanRecord implements ReadableSpan, SinkSpan, SpanContext {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanContext: SpanContext | undefined;
  events: TimedEvent[] = NONE;
  status: SpanStatus = UNSET;
  // Few fields and objects: every span is kept until its batch is exported, and each object it
  // holds is copied by every young-generation collection it survives. The two clock readings are
  // kept as they are read; the [seconds, nanoseconds] pairs are made when the exporter reads them.
  readonly #target: RecordTarget;
  // Attributes set one by one (errors, statuses, totals), merged into the built ones.
  #set: Attributes | undefined;
  #built: Attributes | undefined;
  readonly #epoch: Epoch;
  #started: number;
  #ended = -1;

  /** `startedMs` is the start in milliseconds since the time origin (default: now). */
  constructor(
    target: RecordTarget,
    name: string,
    kind: SpanKind,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
    startedMs: number = performance.now(),
  ) {
    let started = Math.round((startedMs - epoch.ms) * 1000);
    if (started > EPOCH_US) {
      epoch = { ms: performance.now() };
      started = Math.round((startedMs - epoch.ms) * 1000);
    }
    this.#epoch = epoch;
    this.#started = started;
    this.name = name;
    this.kind = kind;
    this.traceId = traceId;
    this.spanId = spanId;
    this.parentSpanContext = parent;
    this.#target = target;
  }

  /** What this kind of span records, as a new attributes object. */
  protected abstract ownAttributes(): Attributes;

  /** What the span records and what was set on it (made once, when read after the end). */
  get attributes(): Attributes {
    if (this.#built !== undefined) return this.#built;
    const attributes = this.ownAttributes();
    if (this.#set !== undefined) Object.assign(attributes, this.#set);
    if (this.#ended !== -1) this.#built = attributes;
    return attributes;
  }

  get traceFlags(): number {
    return TraceFlags.SAMPLED;
  }

  get resource(): Resource {
    return this.#target.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.#target.scope;
  }

  get links(): Link[] {
    return NONE;
  }

  get ended(): boolean {
    return this.#ended !== -1;
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

  /** The span's trace id, span id and flags: the record itself. */
  spanContext(): SpanContext {
    return this;
  }

  get startTime(): HrTime {
    return hrTimeAt(this.#epoch.ms + this.#started / 1000);
  }

  /** The end; before `end()`, the start. */
  get endTime(): HrTime {
    return hrTimeAt(this.#epoch.ms + (this.#ended === -1 ? this.#started : this.#ended) / 1000);
  }

  get duration(): HrTime {
    return hrDuration(this.#ended === -1 ? 0 : (this.#ended - this.#started) / 1000);
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.#ended !== -1) return this;
    this.#set ??= {};
    this.#set[key] = value;
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
    this.#ended = Math.round((performance.now() - this.#epoch.ms) * 1000);
    this.#target.processor.onEnd(this);
  }

  /**
   * Ends the record now, as having started `durationMs` before: for a span whose start is best
   * known at its end (a tool call, timed by the runtime), which saves a clock reading at its start.
   */
  endAfter(durationMs: number): void {
    if (this.#ended !== -1) return;
    const ended = Math.round((performance.now() - this.#epoch.ms) * 1000);
    this.#ended = ended;
    this.#started = ended - Math.round(durationMs * 1000);
    this.#target.processor.onEnd(this);
  }
}
