import { performance } from 'node:perf_hooks';
import type { SpanContext } from '@opentelemetry/api';
import type { ChatAnswer, ChatFacts } from './chat-facts.js';
import { PendingSpan } from './pending-span.js';
import type { SpanBatcher } from './span-batcher.js';
import type { ChatSpan } from './span-sink.js';

/** A `chat` span while the model call runs: its request's facts and its start. */
export class PendingChat extends PendingSpan implements ChatSpan {
  readonly facts: ChatFacts;
  /** The `performance.now()` reading at the call's start. */
  readonly started: number;
  answered: ChatAnswer | undefined;
  readonly #batcher: SpanBatcher;

  constructor(
    batcher: SpanBatcher,
    name: string,
    facts: ChatFacts,
    started: number,
    traceId: string,
    parent: SpanContext | undefined,
  ) {
    super(name, traceId, parent);
    this.facts = facts;
    this.#batcher = batcher;
    this.started = started;
  }

  /** Records the model's answer and ends the span at `ended`. */
  answer(answer: ChatAnswer, ended: number): void {
    if (!this.endOnce()) return;
    this.answered = answer;
    this.#batcher.chat(this, ended);
  }

  protected written(): void {
    this.#batcher.chat(this, performance.now());
  }
}
