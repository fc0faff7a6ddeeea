export { checkExportTimeout } from './export-timeout.js';
export { AGENTCTL, GEN_AI, providerName } from './gen-ai.js';
export {
  type ConventionMessage,
  inputMessages,
  outputMessages,
  systemInstructions,
} from './message-parts.js';
export { samplerOf, TRACE_SAMPLERS } from './sampler-of.js';
export type { SinkSpan, SpanSink } from './span-sink.js';
export {
  protocolOf,
  startTracing,
  TRACE_PROTOCOLS,
  type Tracing,
  type TracingOptions,
} from './start-tracing.js';
export { checkEndpoints } from './trace-endpoints.js';
export { TraceObserver, type TraceObserverOptions } from './trace-observer.js';
