import type { ScheduleDefinition } from '../definitions.js';
import type { ScheduleSpec } from '../spec-types.js';

/** The definition of a `kind: schedule` spec that passed its schema. */
export function normaliseSchedule(spec: ScheduleSpec): ScheduleDefinition {
  return {
    name: spec.name,
    description: spec.description,
    cron: spec.cron,
    agent: spec.agent,
    input: spec.input,
    timezone: spec.timezone,
    session: spec.session,
  };
}
