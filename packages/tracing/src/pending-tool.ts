import { performance } from 'node:perf_hooks';
import type { SpanContext } from '@opentelemetry/api';
import { PendingSpan } from './pending-span.js';
import type { SpanBatcher } from './span-batcher.js';
import { ORIGIN_MS } from './span-record.js';
import type { ToolSpan } from './span-sink.js';
import type { ToolFacts } from './tool-facts.js';

/**
 * An `execute_tool` span while the call runs. It reads no clock when the call is made: the runtime
 * times the call, and the span ends as having run that long (`endAfter`). A call that never ends
 * (paused, or its run failed) starts when it was made, as its event's time says.
 */
export class PendingTool extends PendingSpan implements ToolSpan {
  readonly facts: ToolFacts;
  /** When the call was made, in epoch milliseconds. */
  readonly calledAt: number;
  readonly #batcher: SpanBatcher;

  constructor(
    batcher: SpanBatcher,
    name: string,
    facts: ToolFacts,
    calledAt: number,
    traceId: string,
    parent: SpanContext | undefined,
  ) {
    super(name, traceId, parent);
    this.facts = facts;
    this.calledAt = calledAt;
    this.#batcher = batcher;
  }

  /** Ends the span now, as a call that ran `durationMs` up to now. */
  endAfter(durationMs: number): void {
    if (!this.endOnce()) return;
    const ended = performance.now();
    this.#batcher.tool(this, ended - durationMs, ended);
  }

  protected written(): void {
    this.#batcher.tool(this, this.calledAt - ORIGIN_MS, performance.now());
  }
}
