import type { RunQueue } from './run-queue.js';

/** A run on a cron schedule, as the project declares it (`kind: schedule`). */
export interface ScheduleDefinition {
  name: string;
  cron: string;
  agent: string;
  input: string;
  /** IANA time zone of the cron pattern; UTC when left out. */
  timezone?: string;
  /** A session every run continues; a new one per run when left out. */
  session?: string;
}

/** A schedule as the queue holds it. */
export interface RegisteredSchedule {
  name: string;
  cron?: string;
  timezone?: string;
  agent?: string;
  /** The project that registered it. */
  project?: string;
  /** When the next run is due (ms since the epoch), if the queue knows. */
  next?: number;
}

/**
 * Makes the queue's job schedulers match the project: each schedule upserted (BullMQ creates one
 * delayed job per occurrence, whichever worker runs it), and schedulers the project no longer
 * declares removed.
 */
export async function syncSchedules(
  queue: RunQueue,
  schedules: readonly ScheduleDefinition[],
): Promise<void> {
  const wanted = new Set(schedules.map((s) => s.name));
  for (const schedule of schedules) {
    await queue.queue.upsertJobScheduler(
      schedule.name,
      { pattern: schedule.cron, ...(schedule.timezone && { tz: schedule.timezone }) },
      {
        name: 'run',
        data: {
          agent: schedule.agent,
          input: schedule.input,
          sessionId: schedule.session,
          schedule: schedule.name,
          project: queue.project,
        },
        opts: { attempts: queue.jobOptions.attempts, backoff: queue.jobOptions.backoff },
      },
    );
  }
  // Another project's schedules on the same Redis are not this project's to remove.
  for (const registered of await listSchedules(queue))
    if (!wanted.has(registered.name) && (registered.project ?? queue.project) === queue.project)
      await queue.queue.removeJobScheduler(registered.name);
}

/** The schedules the queue holds, with their next run. */
export async function listSchedules(queue: RunQueue): Promise<RegisteredSchedule[]> {
  const found = await queue.queue.getJobSchedulers(0, -1, true);
  return found.map((s) => ({
    name: s.key,
    cron: s.pattern,
    timezone: s.tz,
    agent: s.template?.data?.agent,
    project: s.template?.data?.project,
    next: s.next,
  }));
}
