import { type Attributes, ROOT_CONTEXT, SamplingDecision, SpanKind } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { AttributesRecord } from './attributes-record.js';
import { type ChatFacts, chatAttributes } from './chat-facts.js';
import { ChatRecord } from './chat-record.js';
import { newSpanId, newTraceId } from './span-ids.js';
import type { RecordTarget, SpanRecord } from './span-record.js';
import type { ChatSpan, SpanSink, ToolSpan } from './span-sink.js';
import { type ToolFacts, toolAttributes } from './tool-facts.js';
import { ToolRecord } from './tool-record.js';

/** Stands for every span of a sampled-out trace: nothing is recorded, its children neither. */
const UNSAMPLED: ChatSpan & ToolSpan = {
  setAttribute: () => undefined,
  setStatus: () => undefined,
  addEvent: () => undefined,
  end: () => undefined,
  answer: () => undefined,
  endAfter: () => undefined,
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
  // The last record of each class, kept alive until the next replaces it. V8 keeps a hidden class
  // only while some object has it, and throws away the optimized code built on it when it dies: a
  // full collection between two bursts of runs (no span pending) would otherwise make every burst
  // optimize the tracing code again (a dozen to twenty deoptimizations a burst).
  #lastRecord: AttributesRecord | undefined;
  #lastChat: ChatRecord | undefined;
  #lastTool: ToolRecord | undefined;

  constructor(target: RecordTarget, sampler: Sampler) {
    this.#target = target;
    this.#sampler = sampler;
  }

  /** Starts a record under `parent`, or a new trace when there is none (sampled at its root). */
  start(name: string, kind: SpanKind, attributes: Attributes, parent: Made | undefined): Made {
    const traceId = parent === undefined ? this.#sampledRoot(name, kind, attributes) : traceOf(parent);
    if (traceId === undefined) return UNSAMPLED;
    this.#lastRecord = new AttributesRecord(
      this.#target,
      name,
      kind,
      attributes,
      traceId,
      newSpanId(),
      recordOf(parent),
    );
    return this.#lastRecord;
  }

  /** Starts the record of a `chat` span. */
  startChat(name: string, facts: ChatFacts, parent: Made | undefined): Made & ChatSpan {
    const traceId =
      parent === undefined
        ? this.#sampledRoot(name, SpanKind.CLIENT, chatAttributes(facts, undefined))
        : traceOf(parent);
    if (traceId === undefined) return UNSAMPLED;
    this.#lastChat = new ChatRecord(this.#target, name, facts, traceId, newSpanId(), recordOf(parent));
    return this.#lastChat;
  }

  /** Starts the record of an `execute_tool` span. */
  startTool(name: string, facts: ToolFacts, calledAt: number, parent: Made | undefined): Made & ToolSpan {
    const traceId =
      parent === undefined
        ? this.#sampledRoot(name, SpanKind.INTERNAL, toolAttributes(facts))
        : traceOf(parent);
    if (traceId === undefined) return UNSAMPLED;
    this.#lastTool = new ToolRecord(
      this.#target,
      name,
      facts,
      calledAt,
      traceId,
      newSpanId(),
      recordOf(parent),
    );
    return this.#lastTool;
  }

  // A new trace's id when the sampler records it (a root's attributes are shown to the sampler).
  #sampledRoot(name: string, kind: SpanKind, attributes: Attributes): string | undefined {
    const traceId = newTraceId();
    const decision = this.#sampler.shouldSample(ROOT_CONTEXT, traceId, name, kind, attributes, []).decision;
    return decision === SamplingDecision.RECORD_AND_SAMPLED ? traceId : undefined;
  }
}

// The trace of a child: its parent's (none for a child of a sampled-out span).
function traceOf(parent: Made): string | undefined {
  return parent === UNSAMPLED ? undefined : (parent as SpanRecord).traceId;
}

function recordOf(parent: Made | undefined): SpanRecord | undefined {
  return parent === UNSAMPLED ? undefined : (parent as SpanRecord | undefined);
}
