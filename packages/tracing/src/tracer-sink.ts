import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { type ChatAnswer, type ChatFacts, chatAttributes } from './chat-facts.js';
import type { ChatSpan, SpanSink, ToolSpan } from './span-sink.js';
import { type ToolFacts, toolAttributes } from './tool-facts.js';

/** An API span with the context that makes it a parent, made the first time it is one. */
class ApiSpan implements ChatSpan, ToolSpan {
  readonly span: Span;
  /** A chat span's request facts, which its answer's attributes are made with. */
  readonly #chat: ChatFacts | undefined;
  #context: Context | undefined;

  constructor(span: Span, chat?: ChatFacts) {
    this.span = span;
    this.#chat = chat;
  }

  get context(): Context {
    this.#context ??= trace.setSpan(ROOT_CONTEXT, this.span);
    return this.#context;
  }

  setAttribute(key: string, value: Parameters<Span['setAttribute']>[1]): void {
    this.span.setAttribute(key, value);
  }

  setStatus(status: Parameters<Span['setStatus']>[0]): void {
    this.span.setStatus(status);
  }

  addEvent(name: string, attributes: Attributes): void {
    this.span.addEvent(name, attributes);
  }

  end(): void {
    this.span.end();
  }

  // The request's attributes are set again with the answer's: the same values, one way to make them.
  // The tracer keeps its own times (started and ended now), as for every span it makes.
  answer(answer: ChatAnswer): void {
    if (this.#chat) this.span.setAttributes(chatAttributes(this.#chat, answer));
    this.span.end();
  }

  // The span started when the call was made and ends now; the tracer keeps its own times.
  endAfter(): void {
    this.span.end();
  }
}

/**
 * Spans through an OpenTelemetry `Tracer` (`tracer.startSpan`), for a tracer provider agentctl does
 * not own, such as the application's global one: its sampler, processors and exporters apply.
 * Parents are passed explicitly, never through the active context.
 */
export class TracerSink implements SpanSink<ApiSpan> {
  readonly #tracer: Tracer;

  constructor(tracer: Tracer) {
    this.#tracer = tracer;
  }

  /** Starts a span with `tracer.startSpan` under the parent's context. */
  start(name: string, kind: SpanKind, attributes: Attributes, parent: ApiSpan | undefined): ApiSpan {
    return new ApiSpan(
      this.#tracer.startSpan(name, { kind, attributes }, parent ? parent.context : ROOT_CONTEXT),
    );
  }

  /** Starts a `chat` span with the request's attributes. */
  startChat(name: string, facts: ChatFacts, _started: number, parent: ApiSpan | undefined): ApiSpan {
    const attributes = chatAttributes(facts, undefined);
    const context = parent ? parent.context : ROOT_CONTEXT;
    return new ApiSpan(this.#tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, context), facts);
  }

  /** Starts an `execute_tool` span now. */
  startTool(name: string, facts: ToolFacts, _calledAt: number, parent: ApiSpan | undefined): ApiSpan {
    return this.start(name, SpanKind.INTERNAL, toolAttributes(facts), parent);
  }
}
