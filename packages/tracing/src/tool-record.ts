import { type Attributes, type SpanContext, SpanKind } from '@opentelemetry/api';
import { ORIGIN_MS, type RecordTarget, SpanRecord } from './span-record.js';
import type { ToolSpan } from './span-sink.js';
import { type ToolFacts, toolAttributes } from './tool-facts.js';

/**
 * The record of an `execute_tool` span. It reads no clock when the call is made: the runtime times
 * the call, and the span ends as having run that long (`endAfter`). A call that never ends (paused,
 * or its run failed) starts when it was made, as its event's time says.
 */
export class ToolRecord extends SpanRecord implements ToolSpan {
  readonly #facts: ToolFacts;

  /** `calledAt`: when the call was made, in epoch milliseconds. */
  constructor(
    target: RecordTarget,
    name: string,
    facts: ToolFacts,
    calledAt: number,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
  ) {
    super(target, name, SpanKind.INTERNAL, traceId, spanId, parent, calledAt - ORIGIN_MS);
    this.#facts = facts;
  }

  protected ownAttributes(): Attributes {
    return toolAttributes(this.#facts);
  }
}
