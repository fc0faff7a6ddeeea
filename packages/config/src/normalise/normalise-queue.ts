import { parseDuration } from '@agentctl/core';
import { type Env, interpolate } from '../env/interpolate.js';
import type { QueueSpec } from '../spec-types.js';

/** The run queue's settings, normalised: the URL resolved, durations in milliseconds. */
export interface QueueSettings {
  /** The Redis URL, or undefined when neither AGENTCTL_QUEUE_URL nor `queue.url` names one. */
  url?: string;
  /** Where `url` came from, for errors to name it. */
  urlFrom?: 'AGENTCTL_QUEUE_URL' | 'queue.url';
  concurrency?: number;
  attempts?: number;
  backoff?: { type: 'fixed' | 'exponential'; delayMs: number };
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalled?: number;
  /** The project's name, which its jobs carry (set by the command line, from `name:`). */
  project?: string;
}

/**
 * The project's `queue:` section with its `${VAR}`s resolved; `AGENTCTL_QUEUE_URL` wins over
 * `queue.url`, so one project file serves every deployment.
 */
export function normaliseQueue(spec: QueueSpec | undefined, env: Env): QueueSettings {
  const fromEnv = env.AGENTCTL_QUEUE_URL?.trim();
  const url = fromEnv || (spec?.url ? interpolate(spec.url, env).trim() || undefined : undefined);
  const ms = (value: string | number | undefined, field: string) =>
    value === undefined
      ? undefined
      : parseDuration(typeof value === 'string' ? interpolate(value, env) : value, field);
  return {
    url,
    urlFrom: fromEnv ? 'AGENTCTL_QUEUE_URL' : url ? 'queue.url' : undefined,
    concurrency: spec?.concurrency,
    attempts: spec?.attempts,
    backoff: spec?.backoff && {
      type: spec.backoff.type,
      delayMs: ms(spec.backoff.delay, 'queue.backoff.delay') ?? 0,
    },
    lockDurationMs: positive(ms(spec?.lock_duration, 'queue.lock_duration'), 'queue.lock_duration'),
    stalledIntervalMs: positive(
      ms(spec?.stalled_interval, 'queue.stalled_interval'),
      'queue.stalled_interval',
    ),
    maxStalled: spec?.max_stalled,
  };
}

// BullMQ refuses a stalled check every 0 ms, and a lock of 0 ms would lapse as soon as it is taken.
function positive(value: number | undefined, field: string): number | undefined {
  if (value === 0) throw new RangeError(`${field}: must be more than 0`);
  return value;
}
