// The Runner subject with tracing off (nothing started: what every run pays for core's observer
// hooks) and on with a no-op exporter: `tracingOn` through agentctl's own tracer provider (the
// path `--trace` takes), `tracingOnApi` through a caller's OpenTelemetry SDK TracerProvider and
// `tracer.startSpan`. Each traced run flushes before it returns, so whoever times `run` times every
// span made, processed and handed to the exporter; the exporter counts what it was handed, so a
// benchmark can prove no span was dropped.
import { createRequire } from 'node:module';
import { startTracing } from '../../packages/tracing/dist/index.js';
import { SUBJECTS } from './subjects.js';

// The SDK as @agentctl/tracing resolves it (the benchmarks have no dependency of their own on it).
const { BasicTracerProvider, BatchSpanProcessor } = createRequire(
  new URL('../../packages/tracing/package.json', import.meta.url),
)('@opentelemetry/sdk-trace-base');

/** Spans handed to the no-op exporters, for the check that none was dropped. */
export const exported = { spans: 0 };

/** The spans one traced run of `steps` tool steps makes: invocation, agent, a chat per model call, a tool call per step. */
export const spansPerRun = (steps) => 2 * steps + 3;

const noopExporter = {
  export(spans, done) {
    exported.spans += spans.length;
    done({ code: 0 });
  },
  async shutdown() {},
  async forceFlush() {},
};

// The start promise, shared: a thousand runs started at once must start tracing once, not once each.
let tracing;

function traced(label, options) {
  return {
    label,
    async run(steps) {
      tracing ??= startTracing(options());
      const started = await tracing;
      const result = await SUBJECTS.runner.run(steps);
      await started.flush();
      return result;
    },
  };
}

/** `tracingOff`, `tracingOn` and `tracingOnApi`: the Runner workload without and with tracing. */
export const TRACING_SUBJECTS = {
  tracingOff: { label: 'agentctl Runner, tracing off', run: SUBJECTS.runner.run },
  tracingOn: traced('agentctl Runner, tracing on (no-op exporter)', () => ({ exporter: noopExporter })),
  tracingOnApi: traced('agentctl Runner, tracing on via a caller TracerProvider (no-op exporter)', () => ({
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] }),
  })),
};
