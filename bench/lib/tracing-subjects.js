// The Runner subject with tracing off (nothing started: what every run pays for core's observer
// hooks) and on (@agentctl/tracing started with a no-op exporter behind the SDK's batch processor,
// so the figure is the cost of making the spans, not of sending them).
import { startTracing } from '../../packages/tracing/dist/index.js';
import { SUBJECTS } from './subjects.js';

const noopExporter = {
  export(_spans, done) {
    done({ code: 0 });
  },
  async shutdown() {},
  async forceFlush() {},
};

// The start promise, shared: a thousand runs started at once must start tracing once, not once each.
let tracing;

/** `tracingOff` and `tracingOn`: the Runner workload without and with tracing. */
export const TRACING_SUBJECTS = {
  tracingOff: { label: 'agentctl Runner, tracing off', run: SUBJECTS.runner.run },
  tracingOn: {
    label: 'agentctl Runner, tracing on (no-op exporter)',
    async run(steps) {
      tracing ??= startTracing({ exporter: noopExporter });
      await tracing;
      return SUBJECTS.runner.run(steps);
    },
  },
};
