import { observeRuns } from '@agentctl/core';
import type { TracerProvider } from '@opentelemetry/api';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { exitWaitMs } from './export-timeout.js';
import { refusedConnection } from './refused-connection.js';
import { samplerOf } from './sampler-of.js';
import { batchSettings, SpanBatcher } from './span-batcher.js';
import { startOnce } from './start-once.js';
import { TableSink } from './table-sink.js';
import { traceEndpoint } from './trace-endpoints.js';
import { TraceObserver } from './trace-observer.js';

/** The OTLP/HTTP encodings agentctl can export in (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export const TRACE_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** Options of {@link startTracing}. */
export interface TracingOptions {
  /** Record prompts, answers, tool arguments and results on the spans (off by default). */
  captureContent?: boolean;
  /** `OTEL_*` variables: service name and protocol. The exporter reads endpoint, headers and timeout from the process. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where spans go instead of OTLP/HTTP (benchmarks use a no-op exporter). */
  exporter?: SpanExporter;
  /**
   * Your own OpenTelemetry tracer provider, such as the application's global one
   * (`trace.getTracerProvider()`): spans are started with its tracer's `startSpan`, so its sampler,
   * processors and exporters apply, and `exporter` and the `OTEL_*` settings are not used. Shutdown
   * then only flushes it: the provider stays yours to shut down.
   */
  tracerProvider?: TracerProvider;
}

/** Tracing switched on for the process; {@link Tracing.shutdown} flushes what is left. */
export interface Tracing {
  /** Also removes this scrubber's secrets from every recorded text (one per compiled project). */
  scrubWith(scrubber: { scrub(text: string): string }): void;
  /** Hands every span ended so far to the exporter and waits for the export; tracing goes on. */
  flush(): Promise<void>;
  /** Stops observing, exports the spans not yet sent and closes the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Traces every run of the process as OpenTelemetry spans (GenAI conventions) exported over
 * OTLP/HTTP to `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`,
 * or `http://localhost:4318/v1/traces`.
 *
 * @example
 * const tracing = await startTracing({ env: process.env });
 * try { await runner.run({ input: 'hi' }).invocation; } finally { await tracing.shutdown(); }
 */
export function startTracing(options: TracingOptions = {}): Promise<Tracing> {
  // Twice in one process (`--trace` and an OTLP endpoint, a harness) would double every span.
  return startOnce(options, openTracing);
}

async function openTracing(options: TracingOptions): Promise<Tracing> {
  const scrubbers = new Set<{ scrub(text: string): string }>();
  const observerOptions = {
    captureContent: options.captureContent,
    scrub: (text: string) => {
      let out = text;
      for (const s of scrubbers) out = s.scrub(out);
      return out;
    },
  };
  const traced = options.tracerProvider
    ? callersProvider(options.tracerProvider)
    : await ownProvider(options.env ?? {}, options.exporter);
  const stop = observeRuns(new TraceObserver(traced.target, observerOptions));
  let closing: Promise<void> | undefined;
  return {
    scrubWith: (scrubber) => {
      scrubbers.add(scrubber);
    },
    flush: traced.flush,
    shutdown: () => {
      closing ??= (async () => {
        stop();
        await traced.shutdown();
      })();
      return closing;
    },
  };
}

interface Traced {
  target: ConstructorParameters<typeof TraceObserver>[0];
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

// agentctl's own spans, batched by its own processor (rows of a table until exported) and handed
// to the SDK's OTLP exporter: most of what a tracer provider would do for them at a fraction of
// the cost per span.
async function ownProvider(
  env: Readonly<Record<string, string | undefined>>,
  exporter: SpanExporter | undefined,
): Promise<Traced> {
  const resource = defaultResource().merge(
    resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'agentctl' }),
  );
  const sampler = samplerOf(env);
  const batcher = new SpanBatcher(
    exporter ?? (await otlpExporter(protocolOf(env))),
    resource,
    { name: '@agentctl/tracing' },
    batchSettings(env),
  );
  return {
    target: new TableSink(batcher, sampler),
    flush: () => batcher.forceFlush(),
    // The exporter reads its endpoint and timeout from the process, so the wait at the end does too.
    shutdown: () => (exporter ? batcher.shutdown() : closeExporting(batcher, process.env)),
  };
}

// The batcher shut down within the exit wait; a failure names the collector it could not reach.
async function closeExporting(
  batcher: SpanBatcher,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const stop = exitStop(env);
  try {
    await batcher.shutdown(stop);
  } catch (error) {
    if (stop.aborted && error instanceof Error && error.cause === stop.reason) throw error;
    const said = error instanceof Error ? error.message : String(error);
    throw new Error(`the collector at ${traceEndpoint(env)} failed: ${said}`, { cause: error });
  }
}

// What ends the wait for the collector at shutdown: a refused connection at once (the exporter
// would retry it until its timeout), or the exit wait (see exitWaitMs) running out.
function exitStop(env: Readonly<Record<string, string | undefined>>): AbortSignal {
  const url = traceEndpoint(env);
  const waitMs = exitWaitMs(env);
  const stop = new AbortController();
  const refused = refusedConnection(url);
  const onRefused = () => {
    // Refused on every address of a name: an AggregateError, whose own message may be empty.
    const reason = refused.reason as Error & { errors?: Error[] };
    const said = reason.message || (reason.errors ?? []).map((e) => e.message).join('; ');
    stop.abort(new Error(`the collector at ${url} refused the connection (${said})`));
  };
  if (refused.aborted) onRefused();
  else refused.addEventListener('abort', onRefused, { once: true });
  const timer = setTimeout(() => {
    stop.abort(
      new Error(
        `the collector at ${url} did not answer within ${waitMs} ms (OTEL_EXPORTER_OTLP_TIMEOUT sets how long the end of a command waits)`,
      ),
    );
  }, waitMs);
  // The wait is over either way once the flush settles; the timer must not hold the process.
  timer.unref();
  return stop.signal;
}

// A provider the caller owns: spans through its tracer; shutting agentctl's tracing down flushes it.
function callersProvider(provider: TracerProvider): Traced {
  // The API's global provider is a proxy: the SDK provider behind it is what flushes.
  type Flushable = TracerProvider & { forceFlush?: () => Promise<void>; getDelegate?: () => TracerProvider };
  const flush = async () => {
    const behind = (provider as Flushable).getDelegate?.() ?? provider;
    await (behind as Flushable).forceFlush?.();
  };
  return { target: provider.getTracer('@agentctl/tracing'), flush, shutdown: flush };
}

/** The protocol the `OTEL_*` variables ask for; throws on one agentctl cannot speak. */
export function protocolOf(
  env: Readonly<Record<string, string | undefined>>,
): (typeof TRACE_PROTOCOLS)[number] {
  // The error names the variable the value came from: the traces-only one wins when both are set.
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const asked = env[variable] || 'http/protobuf';
  const known = TRACE_PROTOCOLS.find((p) => p === asked);
  if (!known) {
    throw new Error(
      `${variable}=${asked} is not supported: agentctl exports traces over ${TRACE_PROTOCOLS.join(' or ')}`,
    );
  }
  return known;
}

// Each exporter is imported only for its protocol: a run that traces loads one of them.
async function otlpExporter(protocol: (typeof TRACE_PROTOCOLS)[number]): Promise<SpanExporter> {
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}
