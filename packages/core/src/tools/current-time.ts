import { defineTool, type Tool } from '../tool.js';

/** Options of {@link currentTime}. */
export interface CurrentTimeOptions {
  /** IANA time zone used when the call names none. Default UTC. */
  timezone?: string;
  /** The clock, replaceable for tests. Default `() => new Date()`. */
  now?: () => Date;
}

/** What `current_time` returns. */
export interface CurrentTime {
  /** The instant in UTC, ISO 8601. */
  utc: string;
  timezone: string;
  /** Wall-clock time in `timezone` with its UTC offset, ISO 8601. */
  local: string;
  weekday: string;
}

/**
 * The built-in `current_time` tool: the current time, in UTC and in an optional IANA time zone.
 *
 * @example
 * createAgent({ name: 'clock', provider, tools: [currentTime({ timezone: 'Europe/Paris' })] });
 */
export function currentTime(options: CurrentTimeOptions = {}): Tool<{ timezone?: string }, CurrentTime> {
  const now = options.now ?? (() => new Date());
  return defineTool<{ timezone?: string }, CurrentTime>({
    name: 'current_time',
    description: 'Returns the current date and time, optionally in an IANA time zone such as Europe/Paris.',
    parameters: {
      type: 'object',
      properties: {
        timezone: {
          type: 'string',
          description: 'IANA time zone name, for example America/New_York',
          examples: ['UTC', 'America/New_York'],
        },
      },
      additionalProperties: false,
    },
    execute: async ({ timezone }) => timeIn(now(), timezone ?? options.timezone ?? 'UTC'),
  });
}

function timeIn(date: Date, timezone: string): CurrentTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
      timeZoneName: 'longOffset',
    }).formatToParts(date);
  } catch {
    throw new Error(`unknown time zone "${timezone}"; use an IANA name such as Europe/Paris or UTC`);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  // longOffset reads "GMT+02:00", or just "GMT" at offset zero.
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  const local = `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset === '+00:00' ? 'Z' : offset}`;
  return { utc: date.toISOString(), timezone, local, weekday: part('weekday') };
}
