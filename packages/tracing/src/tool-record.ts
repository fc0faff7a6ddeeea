import { performance } from 'node:perf_hooks';
import { type Attributes, type SpanContext, SpanKind } from '@opentelemetry/api';
import { type RecordTarget, SpanRecord } from './span-record.js';
import type { ToolSpan } from './span-sink.js';
import { type ToolFacts, toolAttributes } from './tool-facts.js';

/**
 * The record of an `execute_tool` span, which is its own facts. It reads no clock when the call is
 * made: the runtime times the call, and the span ends as having run that long (`endAfter`). A call
 * that never ends (paused, or its run failed) starts when it was made, as its event's time says.
 */
export class ToolRecord extends SpanRecord implements ToolSpan, ToolFacts {
  readonly toolName: string;
  readonly callId: string;
  readonly args: string | undefined;

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
    super(target, name, SpanKind.INTERNAL, traceId, spanId, parent, calledAt - performance.timeOrigin);
    this.toolName = facts.toolName;
    this.callId = facts.callId;
    this.args = facts.args;
  }

  protected ownAttributes(): Attributes {
    return toolAttributes(this);
  }
}
