import { type Attributes, type SpanContext, SpanKind } from '@opentelemetry/api';
import { type ChatAnswer, type ChatFacts, chatAttributes } from './chat-facts.js';
import { type RecordTarget, SpanRecord } from './span-record.js';
import type { ChatSpan } from './span-sink.js';

/**
 * The record of a `chat` span, which is its own facts and, once answered, its own answer: a span
 * waits for its batch as one object, and its attributes are made when they are read.
 */
export class ChatRecord extends SpanRecord implements ChatSpan, ChatFacts, ChatAnswer {
  readonly provider: string;
  readonly requestModel: string;
  readonly agent: string;
  readonly conversationId: string | undefined;
  readonly temperature: number | undefined;
  readonly topP: number | undefined;
  readonly maxTokens: number | undefined;
  readonly system: string | undefined;
  readonly input: string | undefined;
  #answered = false;
  responseModel = '';
  finishReason = '';
  inputTokens = 0;
  outputTokens = 0;
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  output: string | undefined = undefined;

  constructor(
    target: RecordTarget,
    name: string,
    facts: ChatFacts,
    traceId: string,
    spanId: string,
    parent: SpanContext | undefined,
  ) {
    super(target, name, SpanKind.CLIENT, traceId, spanId, parent);
    this.provider = facts.provider;
    this.requestModel = facts.requestModel;
    this.agent = facts.agent;
    this.conversationId = facts.conversationId;
    this.temperature = facts.temperature;
    this.topP = facts.topP;
    this.maxTokens = facts.maxTokens;
    this.system = facts.system;
    this.input = facts.input;
  }

  protected ownAttributes(): Attributes {
    return chatAttributes(this, this.#answered ? this : undefined);
  }

  /** Records the model's answer and ends the span. */
  answer(answer: ChatAnswer): void {
    if (this.ended) return;
    this.#answered = true;
    this.responseModel = answer.responseModel;
    this.finishReason = answer.finishReason;
    this.inputTokens = answer.inputTokens;
    this.outputTokens = answer.outputTokens;
    this.cacheReadTokens = answer.cacheReadTokens;
    this.cacheWriteTokens = answer.cacheWriteTokens;
    this.output = answer.output;
    this.end();
  }
}
