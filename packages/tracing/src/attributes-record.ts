import type { Attributes, SpanContext, SpanKind } from '@opentelemetry/api';
import { type RecordTarget, SpanRecord } from './span-record.js';

/** A span record that starts with its attributes, for the few spans of a run (invocation, agent). */
export class AttributesRecord extends SpanRecord {
  readonly #attributes: Attributes;

  constructor(
    target: RecordTarget,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
  ) {
    super(target, name, kind, traceId, spanId, parent);
    this.#attributes = attributes;
  }

  protected ownAttributes(): Attributes {
    return { ...this.#attributes };
  }
}
