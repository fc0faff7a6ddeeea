import { type Attributes, type SpanContext, SpanKind } from '@opentelemetry/api';
import { type ChatAnswer, type ChatFacts, chatAttributes } from './chat-facts.js';
import { type RecordTarget, SpanRecord } from './span-record.js';
import type { ChatSpan } from './span-sink.js';

/**
 * The record of a `chat` span: the request's facts and, once answered, the answer's, each the object
 * the observer read them into, made attributes when read. Two fields rather than one per fact: every
 * field a record defines is a store when it is made, and the facts objects are made anyway.
 */
export class ChatRecord extends SpanRecord implements ChatSpan {
  readonly #facts: ChatFacts;
  #answer: ChatAnswer | undefined;

  constructor(
    target: RecordTarget,
    name: string,
    facts: ChatFacts,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
  ) {
    super(target, name, SpanKind.CLIENT, traceId, spanId, parent);
    this.#facts = facts;
  }

  protected ownAttributes(): Attributes {
    return chatAttributes(this.#facts, this.#answer);
  }

  /** Records the model's answer and ends the span. */
  answer(answer: ChatAnswer): void {
    if (this.ended) return;
    this.#answer = answer;
    this.end();
  }
}
