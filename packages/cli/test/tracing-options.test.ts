import { describe, expect, it } from 'vitest';
import { TRACED_COMMANDS, tracingRequested } from '../src/tracing.js';
import { parseArgv } from './support/parse-argv.js';

describe('when a command traces', () => {
  it('run, dev, serve, test and worker take --trace and --trace-content', async () => {
    for (const argv of [['run', 'hello', 'hi'], ['dev', 'hello'], ['serve'], ['test'], ['worker']]) {
      const { command, options } = await parseArgv([...argv, '--trace', '--trace-content']);
      expect(TRACED_COMMANDS.has(command)).toBe(true);
      expect(options).toMatchObject({ trace: true, traceContent: true });
    }
  });

  it('is on with a flag or an OTLP endpoint, and OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none wins', () => {
    expect(tracingRequested({}, {})).toBe(false);
    expect(tracingRequested({ trace: true }, {})).toBe(true);
    expect(tracingRequested({ traceContent: true }, {})).toBe(true);
    expect(tracingRequested({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' })).toBe(true);
    expect(tracingRequested({}, { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ trace: true }, { OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingRequested({ trace: true }, { OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});
