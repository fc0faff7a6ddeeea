import { createRequire } from 'node:module';
import { assertSessionId } from '@agentctl/core';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ScheduleSpec } from '../spec-types.js';
import { type RuleContext, validEntries } from './rule.js';

type CronParser = { parse(expression: string, options?: { tz?: string }): unknown };

// Loaded only for a project with schedules: most projects never pay for the parser.
let parser: CronParser | undefined;
function cronParser(): CronParser {
  parser ??= (createRequire(import.meta.url)('cron-parser') as { CronExpressionParser: CronParser })
    .CronExpressionParser;
  return parser;
}

/**
 * A schedule's cron pattern parses (with the parser BullMQ uses), its time zone is one the
 * runtime knows, and its session id is a valid id: what the queue would refuse, validate reports.
 */
export function scheduleTiming(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of validEntries<ScheduleSpec>(ctx, 'schedule')) {
    const { cron, timezone, session } = entry.spec;
    let zoneOk = true;
    if (timezone !== undefined) {
      try {
        new Intl.DateTimeFormat('en', { timeZone: timezone });
      } catch {
        zoneOk = false;
        out.push(
          diagnostic(
            entry.file,
            entry.locate(['timezone']),
            'schedule-timing',
            `unknown time zone "${timezone}" (use an IANA name such as "Europe/Paris" or "UTC")`,
          ),
        );
      }
    }
    try {
      cronParser().parse(cron, zoneOk && timezone ? { tz: timezone } : undefined);
    } catch (error) {
      out.push(
        diagnostic(
          entry.file,
          entry.locate(['cron']),
          'schedule-timing',
          `invalid cron pattern "${cron}": ${(error as Error).message}`,
        ),
      );
    }
    if (session !== undefined) {
      try {
        assertSessionId(session);
      } catch (error) {
        out.push(
          diagnostic(entry.file, entry.locate(['session']), 'schedule-timing', (error as Error).message),
        );
      }
    }
  }
  return out;
}
