import { describe, expect, it } from 'vitest';
import { EXIT_WAIT_MS, exitWaitMs } from '../src/export-timeout.js';
import { traceEndpoint } from '../src/trace-endpoints.js';

describe('exitWaitMs', () => {
  it('is two seconds unless an OTLP timeout is set, then that timeout and a moment for the exporter to say why', () => {
    expect(EXIT_WAIT_MS).toBe(2000);
    expect(exitWaitMs({})).toBe(2000);
    expect(exitWaitMs({ OTEL_EXPORTER_OTLP_TIMEOUT: '10000' })).toBe(10_500);
    // The traces-only variable wins, as it does for the exporter.
    expect(
      exitWaitMs({ OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '300', OTEL_EXPORTER_OTLP_TIMEOUT: '10000' }),
    ).toBe(800);
  });
});

describe('traceEndpoint', () => {
  it('is where the exporter sends spans: the traces endpoint as is, the base one with /v1/traces, or the default', () => {
    expect(traceEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/x' })).toBe('http://c:4318/x');
    expect(traceEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces');
    expect(traceEndpoint({})).toBe('http://localhost:4318/v1/traces');
  });
});
