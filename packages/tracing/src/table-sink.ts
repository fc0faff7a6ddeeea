import {
  type Attributes,
  ROOT_CONTEXT,
  SamplingDecision,
  type SpanContext,
  SpanKind,
} from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { type ChatFacts, chatAttributes } from './chat-facts.js';
import { PendingChat } from './pending-chat.js';
import { PendingSpan } from './pending-span.js';
import { PendingTool } from './pending-tool.js';
import type { SpanBatcher } from './span-batcher.js';
import { newSpanId, newTraceId } from './span-ids.js';
import { SpanRecord } from './span-record.js';
import type { ChatSpan, SinkSpan, SpanSink, ToolSpan } from './span-sink.js';
import { type ToolFacts, toolAttributes } from './tool-facts.js';

/** Stands for every span of a sampled-out trace: nothing is recorded, its children neither. */
const UNSAMPLED: ChatSpan & ToolSpan = {
  setAttribute: () => undefined,
  setStatus: () => undefined,
  addEvent: () => undefined,
  end: () => undefined,
  answer: () => undefined,
  endAfter: () => undefined,
};

/** A span this sink made: a record, a pending span, or the stand-in of a sampled-out trace. */
type Made = SinkSpan & (SpanContext | typeof UNSAMPLED);

/**
 * agentctl's own spans when it owns the tracing (`--trace`, `startTracing`): an invocation's and an
 * agent's spans are records in the SDK's `ReadableSpan` shape; a model call's and a tool call's are
 * pending spans while they run and rows of the {@link SpanBatcher}'s table once ended, made into
 * spans when their batch is exported. None goes through the SDK tracer's per-span context,
 * sampler, attribute and limit machinery. The sampler decides once per trace, at its root; a
 * trace's spans follow that decision, as they do under the SDK for every sampler agentctl offers
 * (parent-based ones, `always_*`, and `traceidratio`, which decides by trace id).
 */
export class TableSink implements SpanSink<Made> {
  readonly #batcher: SpanBatcher;
  readonly #sampler: Sampler;
  // The last span of each class, kept alive until the next replaces it. V8 keeps a hidden class
  // only while some object has it, and throws away the optimized code built on it when it dies: a
  // full collection between two bursts of runs (no span pending) would otherwise make every burst
  // optimize the tracing code again.
  #lastRecord: SpanRecord | undefined;
  #lastChat: PendingChat | undefined;
  #lastTool: PendingTool | undefined;

  constructor(batcher: SpanBatcher, sampler: Sampler) {
    this.#batcher = batcher;
    this.#sampler = sampler;
  }

  /** Starts a record under `parent`, or a new trace when there is none (sampled at its root). */
  start(name: string, kind: SpanKind, attributes: Attributes, parent: Made | undefined): Made {
    const traceId = parent === undefined ? this.#sampledRoot(name, kind, attributes) : traceOf(parent);
    if (traceId === undefined) return UNSAMPLED;
    this.#lastRecord = new SpanRecord(
      this.#batcher,
      name,
      kind,
      attributes,
      traceId,
      newSpanId(),
      // An agent tool's run starts under its tool call, which is still pending.
      parent instanceof PendingSpan ? parent.asParent() : contextOf(parent),
    );
    return this.#lastRecord;
  }

  /** Starts a `chat` span. */
  startChat(name: string, facts: ChatFacts, started: number, parent: Made | undefined): Made & ChatSpan {
    const traceId =
      parent === undefined
        ? this.#sampledRoot(name, SpanKind.CLIENT, chatAttributes(facts, undefined))
        : traceOf(parent);
    if (traceId === undefined) return UNSAMPLED;
    this.#lastChat = new PendingChat(this.#batcher, name, facts, started, traceId, contextOf(parent));
    return this.#lastChat;
  }

  /** Starts an `execute_tool` span. */
  startTool(name: string, facts: ToolFacts, calledAt: number, parent: Made | undefined): Made & ToolSpan {
    const traceId =
      parent === undefined
        ? this.#sampledRoot(name, SpanKind.INTERNAL, toolAttributes(facts))
        : traceOf(parent);
    if (traceId === undefined) return UNSAMPLED;
    this.#lastTool = new PendingTool(this.#batcher, name, facts, calledAt, traceId, contextOf(parent));
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
  return parent === UNSAMPLED ? undefined : (parent as SpanContext).traceId;
}

function contextOf(parent: Made | undefined): SpanContext | undefined {
  return parent === UNSAMPLED ? undefined : (parent as SpanContext | undefined);
}
