// The Runner subject with tracing off (@agentctl/tracing imported, nothing started: what every run
// pays for core's observer hooks) and on with a no-op exporter: `tracingOn` through agentctl's own
// tracer provider (the path `--trace` takes), `tracingOnApi` through a caller's OpenTelemetry SDK
// TracerProvider and `tracer.startSpan`. A benchmark calls `flush()` before it stops its clock, so it
// times every span made, processed and handed to the exporter (the batch processor hands over 512 at
// a time as runs go; the flush hands over the rest); the exporter counts what it was handed, so a
// benchmark can prove no span was dropped. Three more take tracing apart, to show where its cost is:
// `observerOnly` (a run observer that does nothing: core's hooks alone), `recordsDropped`
// (agentctl's observer, spans and batches, each batch dropped unread by its exporter) and `rowsOnly`
// (agentctl's observer writing its table's rows, which are never made into spans). Two more
// are yardsticks: `clockOnly` reads the clock where a span's times are taken (a model call's start
// and end, a tool call's end) and keeps nothing, a lower bound for any tracer on core's hooks;
// `leastRecords` also keeps, per model and tool call, the least a span is as an object (its name, a
// number for an id, its start and end) in batches of 512, dropped when full: no attributes, no
// parents, no export (agentctl's table keeps its rows in arrays instead, and may cost less).
import { createRequire } from 'node:module';
import { startTracing, TraceObserver } from '../../packages/tracing/dist/index.js';
import { SpanBatcher } from '../../packages/tracing/dist/span-batcher.js';
import { SpanTable } from '../../packages/tracing/dist/span-table.js';
import { TableSink } from '../../packages/tracing/dist/table-sink.js';
import { loadCore } from './core.js';
import { SUBJECTS } from './subjects.js';
import { PART_LABELS } from './tracing-parts.js';

// The copy of core that @agentctl/tracing imports (lib/core.js).
const { observeRuns } = await loadCore();

// The SDK as @agentctl/tracing resolves it (the benchmarks have no dependency of their own on it).
const { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor } = createRequire(
  new URL('../../packages/tracing/package.json', import.meta.url),
)('@opentelemetry/sdk-trace-base');

/** Spans handed to the no-op exporters, for the check that none was dropped. */
export const exported = { spans: 0 };

/** The spans one traced run of `steps` tool steps makes: invocation, agent, a chat per model call, a tool call per step. */
export const spansPerRun = (steps) => 2 * steps + 3;

// Sends nothing, but reads what every exporter reads of a span (ids, times, attributes), so work a
// span leaves to be done when it is read is done, and timed, here too.
const noopExporter = {
  export(spans, done) {
    for (const span of spans) {
      const context = span.spanContext();
      if (
        context.spanId.length + span.startTime[1] + span.endTime[1] + Object.keys(span.attributes).length <
        0
      ) {
        throw new Error('unreachable: keeps the reads');
      }
    }
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
      await tracing;
      return SUBJECTS.runner.run(steps);
    },
    /** Hands every span ended so far to the exporter. */
    async flush() {
      await (await tracing)?.flush();
    },
  };
}

// A run observer started once, on the first run, and flushed as a traced subject is (no-op).
function observed(label, observer) {
  let started = false;
  return {
    label,
    run(steps) {
      if (!started) {
        started = true;
        observeRuns(observer());
      }
      return SUBJECTS.runner.run(steps);
    },
    async flush() {},
  };
}

// Counts the spans of each batch and reads none of them.
const droppingExporter = {
  export(spans, done) {
    exported.spans += spans.length;
    done({ code: 0 });
  },
  async shutdown() {},
  async forceFlush() {},
};

// Reads the clock where a span's times are taken and keeps nothing (a call into the clock is not
// optimized away).
function clockOnlyObserver() {
  const observation = {
    end() {
      performance.now();
    },
    fail() {},
  };
  return {
    event(event) {
      if (event.type === 'tool_result') performance.now();
    },
    modelCall() {
      performance.now();
      return observation;
    },
  };
}

// Keeps the least a span is, per model and tool call, in batches of 512 that are dropped when full.
function leastRecordsObserver() {
  let batch = [];
  let ids = 0;
  const keep = (record) => {
    batch.push(record);
    if (batch.length === 512) batch = [];
  };
  return {
    event(event) {
      if (event.type === 'tool_result') {
        const ended = performance.now();
        keep({ name: event.name, id: ++ids, start: ended - event.duration, end: ended });
      }
    },
    modelCall(call) {
      const record = { name: call.provider, id: ++ids, start: performance.now(), end: 0 };
      keep(record);
      return {
        end() {
          record.end = performance.now();
        },
        fail() {},
      };
    },
  };
}

/**
 * `tracingOff`, `tracingOn` and `tracingOnApi`: the Runner workload without and with tracing;
 * `observerOnly`, `clockOnly`, `leastRecords`, `recordsDropped` and `rowsOnly`: parts of `tracingOn`.
 */
export const TRACING_SUBJECTS = {
  tracingOff: { label: 'agentctl Runner, tracing off', run: SUBJECTS.runner.run, async flush() {} },
  tracingOn: traced('agentctl Runner, tracing on (no-op exporter)', () => ({ exporter: noopExporter })),
  tracingOnApi: traced('agentctl Runner, tracing on via a caller TracerProvider (no-op exporter)', () => ({
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] }),
  })),
  observerOnly: observed(PART_LABELS.observerOnly, () => ({
    event() {},
    modelCall: () => undefined,
  })),
  clockOnly: observed(PART_LABELS.clockOnly, clockOnlyObserver),
  leastRecords: observed(PART_LABELS.leastRecords, leastRecordsObserver),
  recordsDropped: (() => {
    let batcher;
    const subject = observed(PART_LABELS.recordsDropped, () => {
      batcher = new SpanBatcher(droppingExporter, undefined, { name: '@agentctl/tracing' });
      return new TraceObserver(new TableSink(batcher, new AlwaysOnSampler()));
    });
    return { ...subject, flush: async () => batcher?.forceFlush() };
  })(),
  // An upper bound for an export done anywhere but the run's thread (a worker, another process):
  // what the run's thread pays when it only writes the rows. Only this child's table is changed.
  rowsOnly: (() => {
    let batcher;
    const subject = observed(PART_LABELS.rowsOnly, () => {
      SpanTable.prototype.take = function () {
        exported.spans += this.length;
        this.length = 0;
        return [];
      };
      batcher = new SpanBatcher(droppingExporter, undefined, { name: '@agentctl/tracing' });
      return new TraceObserver(new TableSink(batcher, new AlwaysOnSampler()));
    });
    return { ...subject, flush: async () => batcher?.forceFlush() };
  })(),
};
