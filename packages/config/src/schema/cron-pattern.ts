// Case-insensitive without the `i` flag, which a JSON Schema pattern cannot carry.
const anyCase = (word: string): string =>
  [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('');
const alt = (parts: readonly string[]): string => `(?:${parts.join('|')})`;

const MONTHS = 'JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC'.split(' ').map(anyCase);
const DAYS = 'SUN MON TUE WED THU FRI SAT'.split(' ').map(anyCase);
// Leading zeros are read away ("05", "007"), as the parser reads them.
const VALUES = {
  second: '0*[1-5]?\\d',
  minute: '0*[1-5]?\\d',
  hour: '0*(?:1?\\d|2[0-3])',
  dayOfMonth: '0*(?:[1-9]|[12]\\d|3[01])',
  month: alt(['0*(?:[1-9]|1[0-2])', ...MONTHS]),
  dayOfWeek: alt(['0*[0-7]', ...DAYS]),
} as const;
const STEP = '(?:/0*[1-9]\\d*)?';

function field(name: keyof typeof VALUES): string {
  const value = VALUES[name];
  // H (a value from the job's hash) may stand where a number does, or pick from a range.
  const end = alt([value, 'H']);
  let element = `${alt(['\\*', '\\?', `H\\(${value}-${value}\\)`, `${end}(?:-${end})?`])}${STEP}`;
  // The last day of the month (L); the last such weekday of the month (5L, FRIL).
  if (name === 'dayOfMonth') element = alt([element, 'L']);
  if (name === 'dayOfWeek') element = alt([element, `${alt(['[0-7]', ...DAYS, 'H'])}L`]);
  const whole = [`${element}(?:,${element})*`];
  // The nth such weekday of the month (5#3), alone in its field.
  if (name === 'dayOfWeek') whole.push(`${alt([value, '\\*', '\\?', 'H'])}#[1-5]`);
  return alt(whole);
}

const SPACE = '\\s+';
const FIVE = (['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const).map(field).join(SPACE);
const MACROS = `@${alt(['yearly', 'annually', 'monthly', 'weekly', 'daily', 'hourly', 'minutely', 'secondly'])}`;

/**
 * The shape of a cron pattern the queue's parser (cron-parser, BullMQ's) reads, as the JSON Schema
 * `pattern` of a schedule's `cron`: five fields or six with seconds first, each value in its
 * field's range, or a macro such as `@daily`. What a pattern cannot say (a range written backwards,
 * a value listed twice, the 31st of a month that has none) is the schedule-timing rule's alone.
 */
export const CRON_PATTERN: string = `^\\s*${alt([MACROS, `(?:${field('second')}${SPACE})?${FIVE}`])}\\s*$`;
