import { assertSessionId } from '@agentctl/core';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ScheduleSpec } from '../spec-types.js';
import { type RuleContext, validEntries } from './rule.js';
import { isTimeZone } from './time-zone-rule.js';

type CronParser = { parse(expression: string, options?: { tz?: string }): unknown };

let parser: CronParser | undefined;

/**
 * Loads the cron parser (the one BullMQ uses) for {@link scheduleTiming}. Rules are synchronous,
 * so the loader calls this first, and only for a project with schedules: most never pay for it.
 */
export async function loadCronParser(): Promise<void> {
  parser ??= (await import('cron-parser')).CronExpressionParser as CronParser;
}

function cronParser(): CronParser {
  if (!parser) throw new Error('the cron parser is not loaded (loadCronParser)');
  return parser;
}

/**
 * A schedule's cron pattern has five or six fields and parses (with the parser BullMQ uses), its time zone is one the
 * runtime knows, and its session id is a valid id: what the queue would refuse, validate reports.
 */
export function scheduleTiming(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of validEntries<ScheduleSpec>(ctx, 'schedule')) {
    const { cron, timezone, session } = entry.spec;
    let zoneOk = true;
    if (timezone !== undefined) {
      if (!isTimeZone(timezone)) {
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
    const fields = cron.trim().split(/\s+/).length;
    // The parser takes fewer fields too, filling in the rest: "0 8 * *" is a field forgotten, not a schedule.
    if (!cron.trim().startsWith('@') && fields < 5)
      out.push(
        diagnostic(
          entry.file,
          entry.locate(['cron']),
          'schedule-timing',
          `invalid cron pattern "${cron}": it has ${fields} field${fields === 1 ? '' : 's'}; write five (minute hour day-of-month month day-of-week) or six with seconds first`,
        ),
      );
    else
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
