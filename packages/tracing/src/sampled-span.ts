import { type Link, type SpanContext, TraceFlags } from '@opentelemetry/api';

const NONE: never[] = Object.freeze([]) as never[];

/**
 * What every span agentctl hands the exporter has alike: it is sampled, it is its own span context
 * (it has the trace id, span id and flags, which saves an object per span), and it has no links and
 * dropped nothing.
 */
export abstract class SampledSpan implements SpanContext {
  abstract readonly traceId: string;
  abstract readonly spanId: string;

  get traceFlags(): number {
    return TraceFlags.SAMPLED;
  }

  /** The span's trace id, span id and flags: the span itself. */
  spanContext(): SpanContext {
    return this;
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
