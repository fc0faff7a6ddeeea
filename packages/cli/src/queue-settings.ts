import {
  type LoadedProject,
  normaliseQueue,
  normaliseSchedule,
  type ProjectSpec,
  type QueueSettings,
  type ScheduleSpec,
} from '@agentctl/config';
import type { ScheduleDefinition } from '@agentctl/queue';
import { CliError, EXIT } from './cli-error.js';

/** The project's `queue:` settings, AGENTCTL_QUEUE_URL winning over `queue.url`. */
export function queueSettings(
  project: Pick<LoadedProject, 'specs'>,
  env: Record<string, string | undefined>,
): QueueSettings {
  const spec = project.specs.project?.spec as ProjectSpec | undefined;
  try {
    return { ...normaliseQueue(spec?.queue, env), project: spec?.name };
  } catch (error) {
    throw new CliError(`agentctl.yaml queue: ${(error as Error).message}`, EXIT.failed);
  }
}

/** The queue URL, or a usage error saying where to set one. */
export function requireQueueUrl(settings: QueueSettings, what: string): string {
  if (settings.url) return settings.url;
  throw new CliError(
    `${what} needs a queue: set AGENTCTL_QUEUE_URL=redis://HOST:PORT (or queue.url in agentctl.yaml)`,
    EXIT.usage,
  );
}

/** The project's `kind: schedule` documents, as the queue takes them. */
export function scheduleDefinitions(project: LoadedProject): ScheduleDefinition[] {
  return [...project.specs.schedule.values()]
    .map(({ spec }: { spec: ScheduleSpec }) => normaliseSchedule(spec))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Connects to the queue: a bad URL is bad usage (exit 2), an unreachable Redis a failure (exit 1);
 * either names the setting the URL came from.
 */
export async function connectQueue(
  url: string,
  from: QueueSettings['urlFrom'],
): Promise<Awaited<ReturnType<typeof import('@agentctl/queue').connectRedis>>> {
  const { connectRedis, QueueUrlError } = await import('@agentctl/queue');
  try {
    return await connectRedis(url);
  } catch (error) {
    const setting = from === 'queue.url' ? 'queue.url in agentctl.yaml' : from;
    throw new CliError(
      `${(error as Error).message}${setting ? ` (set by ${setting})` : ''}`,
      error instanceof QueueUrlError ? EXIT.usage : EXIT.failed,
    );
  }
}
