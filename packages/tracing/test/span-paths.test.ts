import { Runner } from '@agentctl/core';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from '../../../test/support/cli.js';
import { type ReceivedSpan, startOtlpReceiver } from '../../../test/support/otlp-receiver.js';
import { defaultRegistry } from '../../cli/src/default-registry.js';
import { compileProject, loadProject, type Runtime } from '../../config/src/index.js';
import { startTracing, type TracingOptions } from '../src/index.js';

// agentctl makes its spans two ways: as SDK span records fed straight to the SDK's batch processor
// and OTLP exporter when it owns the tracing (`--trace`, `startTracing()`), and through
// `tracer.startSpan` when the caller hands it their own TracerProvider (here registered as the
// global one, as an application would). Both must export the same spans, attribute for attribute:
// the traced fixture project (tools, a transfer, an agent tool, a failing tool, cached tokens, a
// workflow, a failing model) is run both ways against a loopback OTLP receiver.

let project: string;
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

beforeAll(async () => {
  project = await fixtureProject('traced');
});

// Compiled afresh for each run: the fixture's scripted models move through their scripts.
async function compiled(): Promise<Runtime> {
  const registry = defaultRegistry();
  const loaded = await loadProject({ project, env: {}, registry });
  const { runtime, diagnostics } = await compileProject(loaded, { registry, env: {} });
  if (!runtime) throw new Error(JSON.stringify(diagnostics));
  return runtime;
}
afterAll(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  await removeTempDirs();
});

const RUNS: Array<[agent: string, input: string]> = [
  ['triage', 'where is my invoice?'],
  ['report', 'write about otters'],
  ['failing', 'hi'],
];

/** Runs the fixture's agents with tracing started by `options(endpoint)`; the spans the receiver decoded. */
async function traced(options: (endpoint: string) => TracingOptions): Promise<ReceivedSpan[]> {
  const runtime = await compiled();
  const receiver = await startOtlpReceiver();
  try {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    const tracing = await startTracing(options(receiver.endpoint));
    try {
      for (const [name, input] of RUNS) {
        const agent = runtime.agents.get(name);
        if (!agent) throw new Error(`no agent ${name}`);
        // The failing agent's run rejects: its spans are what is checked.
        await new Runner({ agent }).run({ input }).invocation.catch(() => undefined);
      }
    } finally {
      await tracing.shutdown();
    }
    return receiver.spans;
  } finally {
    await receiver.close();
  }
}

// Ids, times and session ids differ from run to run: a span is its name, place in the tree and data.
function shape(spans: readonly ReceivedSpan[]) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const path = (s: ReceivedSpan): string => {
    const parent = byId.get(s.parentSpanId);
    return parent ? `${path(parent)} > ${s.name}` : s.name;
  };
  const VARYING = ['agentctl.invocation.id', 'agentctl.session.id', 'gen_ai.conversation.id'];
  return spans
    .map((s) => ({
      path: path(s),
      kind: s.kind,
      attributes: Object.fromEntries(
        Object.entries(s.attributes).map(([k, v]) => [k, VARYING.includes(k) ? typeof v : v]),
      ),
      events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      status: s.status,
      resource: s.resource['service.name'],
      scope: s.scope,
    }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe('the two ways agentctl makes spans', () => {
  it('its own span records and a caller TracerProvider through tracer.startSpan export the same spans', async () => {
    const own = await traced(() => ({ env: {} }));

    let provider: BasicTracerProvider | undefined;
    let callers: ReceivedSpan[];
    try {
      callers = await traced((endpoint) => {
        provider = new BasicTracerProvider({
          resource: resourceFromAttributes({ 'service.name': 'agentctl' }),
          spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))],
        });
        trace.setGlobalTracerProvider(provider);
        return { tracerProvider: trace.getTracerProvider() };
      });
    } finally {
      trace.disable();
      await provider?.shutdown();
    }

    // Every run made its spans: 3 invocations + the summarizer's, and nothing else twice.
    expect(
      own
        .filter((s) => s.name.startsWith('invocation '))
        .map((s) => s.name)
        .sort(),
    ).toEqual(['invocation failing', 'invocation report', 'invocation summarizer', 'invocation triage']);
    expect(callers.map((s) => s.name).sort()).toEqual(own.map((s) => s.name).sort());
    expect(own).toHaveLength(callers.length);
    expect(shape(own)).toEqual(shape(callers));

    // One trace per top-level invocation; every parent is in it; ids are W3C-valid hex.
    for (const spans of [own, callers]) {
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(3);
      for (const s of spans) {
        expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
        expect(s.spanId).not.toBe('0000000000000000');
        if (s.parentSpanId) {
          const parent = spans.find((p) => p.spanId === s.parentSpanId);
          expect(parent?.traceId, s.name).toBe(s.traceId);
        }
      }
      expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    }

    // The records' own clock agrees with the SDK's: real epoch times, ends after starts.
    const before = Date.now() - 60_000;
    for (const s of own) {
      expect(s.startMs, s.name).toBeGreaterThan(before);
      expect(s.endMs, s.name).toBeGreaterThanOrEqual(s.startMs);
      expect(s.endMs, s.name).toBeLessThanOrEqual(Date.now());
    }
    const ownChat = own.find(
      (s) => s.name === 'chat script' && s.attributes['gen_ai.usage.output_tokens'] === 9,
    );
    expect(ownChat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'offline',
      'gen_ai.usage.input_tokens': 75,
      'gen_ai.usage.cache_read.input_tokens': 30,
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  it('sampled out at the root, an invocation leaves no span record, nor do its children', async () => {
    const own = await traced(() => ({ env: { OTEL_TRACES_SAMPLER: 'always_off' } }));
    expect(own).toEqual([]);
  });
});
