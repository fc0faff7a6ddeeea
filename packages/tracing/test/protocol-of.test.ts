import { describe, expect, it } from 'vitest';
import { protocolOf } from '../src/index.js';

describe('protocolOf', () => {
  it('reads the traces variable over the general one, defaulting to http/protobuf', () => {
    expect(protocolOf({})).toBe('http/protobuf');
    expect(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }),
    ).toBe('http/json');
  });

  it('refuses a protocol it cannot speak, naming the variable that asked for it', () => {
    expect(() => protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: agentctl exports traces over http/protobuf or http/json',
    );
    expect(() =>
      protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }),
    ).toThrow(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported/);
  });
});
