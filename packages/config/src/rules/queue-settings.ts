import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { interpolate, MissingEnvError } from '../env/interpolate.js';
import { errorField } from '../normalise/error-field.js';
import { normaliseQueue } from '../normalise/normalise-queue.js';
import type { ProjectSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries } from './rule.js';

/**
 * The project's `queue:` resolves as `worker`, `serve` and `run --queue` resolve it (durations
 * more than 0, `${VAR}`s with this environment), and its `url` is a Redis URL with at most a
 * database number for a path: what they would refuse, validate reports at the field.
 */
export function queueSettings(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of validEntries<ProjectSpec>(ctx, 'project')) {
    const queue = entry.spec.queue;
    if (!queue) continue;
    try {
      // The URL is checked below, on what the file says: the variable that wins over it is not the file's.
      normaliseQueue(queue, { ...ctx.env, AGENTCTL_QUEUE_URL: undefined });
    } catch (error) {
      if (error instanceof MissingEnvError) continue;
      const message = (error as Error).message;
      out.push(
        diagnostic(entry.file, entry.locate(errorField({ queue }, message)), 'queue-settings', message),
      );
    }
    if (queue.url === undefined) continue;
    let url: string;
    try {
      url = interpolate(queue.url, ctx.env).trim();
    } catch {
      continue;
    }
    const problem = url === '' ? undefined : redisUrlProblem(url);
    if (problem)
      out.push(
        diagnostic(
          entry.file,
          entry.locate(['queue', 'url']),
          'queue-settings',
          `queue.url \`${excerpt(url)}\` ${problem} (expected redis://HOST:PORT, or rediss:// with TLS, and at most a database number: redis://HOST:PORT/0)`,
        ),
      );
  }
  return out;
}

function redisUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return 'is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return `is not a Redis URL`;
  if (!/^\/?(\d+)?$/.test(parsed.pathname)) return 'names a database that is not a number';
  return undefined;
}
