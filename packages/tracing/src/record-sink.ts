import { type Attributes, ROOT_CONTEXT, SamplingDecision, type SpanKind } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { newSpanId, newTraceId } from './span-ids.js';
import { type RecordTarget, SpanRecord } from './span-record.js';
import type { SinkSpan, SpanSink } from './span-sink.js';

/** Stands for every span of a sampled-out trace: nothing is recorded, its children neither. */
const UNSAMPLED: SinkSpan = {
  setAttribute: () => undefined,
  setStatus: () => undefined,
  addEvent: () => undefined,
  end: () => undefined,
};

type Made = SpanRecord | typeof UNSAMPLED;

/**
 * agentctl's own spans when it owns the tracer provider (`--trace`, `startTracing`): records in
 * the SDK's `ReadableSpan` shape handed to an SDK span processor (the batch processor in front of
 * the OTLP exporter), without the SDK tracer's per-span context, sampler, attribute and limit
 * machinery. The sampler decides once per trace, at its root; a trace's spans follow that decision,
 * as they do under the SDK for every sampler agentctl offers (parent-based ones, `always_*`, and
 * `traceidratio`, which decides by trace id).
 */
export class RecordSink implements SpanSink<Made> {
  readonly #target: RecordTarget;
  readonly #sampler: Sampler;

  constructor(target: RecordTarget, sampler: Sampler) {
    this.#target = target;
    this.#sampler = sampler;
  }

  /** Starts a record under `parent`, or a new trace when there is none (sampled at its root). */
  start(name: string, kind: SpanKind, attributes: Attributes, parent: Made | undefined): Made {
    if (parent instanceof SpanRecord) {
      return new SpanRecord(this.#target, name, kind, attributes, parent.traceId, newSpanId(), parent);
    }
    if (parent) return UNSAMPLED;
    const traceId = newTraceId();
    const decision = this.#sampler.shouldSample(ROOT_CONTEXT, traceId, name, kind, attributes, []).decision;
    if (decision !== SamplingDecision.RECORD_AND_SAMPLED) return UNSAMPLED;
    return new SpanRecord(this.#target, name, kind, attributes, traceId, newSpanId(), undefined);
  }
}
