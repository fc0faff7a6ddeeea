import { describe, expect, it } from 'vitest';
import { createProgram, type Invocation } from '../src/program.js';
import { TRACED_COMMANDS, tracingRequested } from '../src/tracing.js';

async function parse(argv: string[]): Promise<Invocation> {
  let seen: Invocation | undefined;
  const { program } = createProgram(async (invocation) => {
    seen = invocation;
    return 0;
  });
  await program.parseAsync(['node', 'agentctl', ...argv]);
  return seen as Invocation;
}

describe('when a command traces', () => {
  it('run, dev and serve take --trace and --trace-content', async () => {
    for (const argv of [['run', 'hello', 'hi'], ['dev', 'hello'], ['serve']]) {
      const { command, options } = await parse([...argv, '--trace', '--trace-content']);
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
