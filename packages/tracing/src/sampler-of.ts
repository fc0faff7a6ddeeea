import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';

/** The values of `OTEL_TRACES_SAMPLER` agentctl reads. */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * The sampler of the standard `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` (this SDK no longer
 * reads them itself). Throws on a sampler it does not know or a ratio outside 0..1, naming the
 * variable: sampling everything in place of a mistyped ratio would cost what the ratio was to save.
 *
 * @example
 * samplerOf({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
 */
export function samplerOf(env: Readonly<Record<string, string | undefined>>): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  if (!(TRACE_SAMPLERS as readonly string[]).includes(name))
    throw new Error(
      `OTEL_TRACES_SAMPLER=${env.OTEL_TRACES_SAMPLER} is not a sampler agentctl knows: use one of ${TRACE_SAMPLERS.join(', ')}`,
    );
  const ratio = () => {
    const raw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
    if (!raw) return 1;
    const arg = Number(raw);
    if (!Number.isFinite(arg) || arg < 0 || arg > 1)
      throw new Error(
        `OTEL_TRACES_SAMPLER_ARG=${env.OTEL_TRACES_SAMPLER_ARG} is not a ratio: write a number from 0 to 1, such as 0.1`,
      );
    return arg;
  };
  switch (name) {
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    case 'always_on':
      return new AlwaysOnSampler();
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
