import { performance } from 'node:perf_hooks';
import {
  type Attributes,
  type AttributeValue,
  type SpanContext,
  type SpanStatus,
  TraceFlags,
} from '@opentelemetry/api';
import type { TimedEvent } from '@opentelemetry/sdk-trace-base';
import { newSpanId } from './span-ids.js';
import { hrTimeAt } from './span-record.js';
import type { SinkSpan } from './span-sink.js';

/** What few spans have: attributes set one by one, a status, events. */
export interface RareParts {
  attributes?: Attributes;
  status?: SpanStatus;
  events?: TimedEvent[];
}

/**
 * A `chat` or `execute_tool` span while its call runs: the least that must be kept until it ends,
 * when it becomes a row of the batch's {@link SpanTable} and this object is garbage. Its span id is
 * drawn only if something asks for it before then (a tool call an agent tool's run starts under);
 * otherwise the row gets one when the batch is exported.
 */
export abstract class PendingSpan implements SinkSpan, SpanContext {
  readonly name: string;
  readonly traceId: string;
  readonly parent: SpanContext | undefined;
  /** Set only by what few spans have; undefined for most. */
  rare: RareParts | undefined;
  #spanId: string | undefined;
  #ended = false;

  constructor(name: string, traceId: string, parent: SpanContext | undefined) {
    this.name = name;
    this.traceId = traceId;
    this.parent = parent;
  }

  get traceFlags(): number {
    return TraceFlags.SAMPLED;
  }

  /** The span id, drawn the first time it is asked for. */
  get spanId(): string {
    this.#spanId ??= newSpanId();
    return this.#spanId;
  }

  /** The span as the parent of another: its span id is drawn now, for the row to keep. */
  asParent(): SpanContext {
    this.#spanId ??= newSpanId();
    return this;
  }

  /** The span id if something asked for it, for the row to keep. */
  get drawnSpanId(): string | undefined {
    return this.#spanId;
  }

  get ended(): boolean {
    return this.#ended;
  }

  setAttribute(key: string, value: AttributeValue): void {
    if (this.#ended) return;
    this.rare ??= {};
    this.rare.attributes ??= {};
    this.rare.attributes[key] = value;
  }

  setStatus(status: SpanStatus): void {
    if (this.#ended) return;
    this.rare ??= {};
    this.rare.status = status;
  }

  addEvent(name: string, attributes: Attributes): void {
    if (this.#ended) return;
    this.rare ??= {};
    this.rare.events ??= [];
    this.rare.events.push({ name, attributes, time: hrTimeAt(performance.now()), droppedAttributesCount: 0 });
  }

  /** Ends the span now (a failed call, or one its run left unfinished). */
  end(): void {
    if (this.endOnce()) this.written();
  }

  /** True the first time: the span is to be written now. */
  protected endOnce(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    return true;
  }

  /** Writes the ended span's row, at the clock's reading now. */
  protected abstract written(): void;
}
