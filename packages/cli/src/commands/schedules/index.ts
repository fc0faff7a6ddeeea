import { listSchedules, RunQueue } from '@agentctl/queue';
import { CliError, EXIT } from '../../cli-error.js';
import type { Io } from '../../io.js';
import { openProject } from '../../project.js';
import { connectQueue, queueSettings, scheduleDefinitions } from '../../queue-settings.js';
import { alignColumns, formatTime } from '../sessions/sessions-table.js';

/**
 * `agentctl schedules list`: the project's schedules and, when a queue is configured, whether the
 * queue holds each one (a worker registers them) and when it runs next.
 */
export async function schedulesCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  if (raw.action !== 'list')
    throw new CliError(`unknown action "${String(raw.action)}"; expected list`, EXIT.usage);
  const project = await openProject(raw, io);
  const declared = scheduleDefinitions(project);
  const settings = queueSettings(project, io.env);
  const registered = new Map<string, number | undefined>();
  if (settings.url) {
    const connection = await connectQueue(settings.url, settings.urlFrom);
    const queue = new RunQueue(connection);
    try {
      for (const s of await listSchedules(queue)) registered.set(s.name, s.next);
    } catch (error) {
      throw new CliError(`cannot read the queue: ${(error as Error).message}`, EXIT.failed);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }
  const rows = declared.map((s) => ({
    ...s,
    registered: registered.has(s.name),
    next: registered.get(s.name),
  }));
  if (raw.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stderr('no schedules in this project (declare one with `kind: schedule`)\n');
    return EXIT.ok;
  }
  const table = [['NAME', 'CRON', 'TIMEZONE', 'AGENT', 'NEXT RUN']];
  for (const r of rows) {
    const next = r.next !== undefined ? formatTime(r.next) : settings.url ? 'not registered' : 'no queue';
    table.push([r.name, r.cron, r.timezone ?? 'UTC', r.agent, next]);
  }
  io.stdout(`${alignColumns(table)}\n`);
  return EXIT.ok;
}
