import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { SinkSpan, SpanSink } from './span-sink.js';

/** An API span with the context that makes it a parent, made the first time it is one. */
class ApiSpan implements SinkSpan {
  readonly span: Span;
  #context: Context | undefined;

  constructor(span: Span) {
    this.span = span;
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

  end(attributes?: Attributes): void {
    if (attributes) this.span.setAttributes(attributes);
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
}
