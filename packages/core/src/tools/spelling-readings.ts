import path from 'node:path';
import { urlReadings } from './url-readings.js';

/**
 * What a string argument of a tool that does not say how it reads its arguments (an MCP server's,
 * a module's) may also stand for, for `deny` rules: a value with a slash with `.`, `..` and
 * repeated slashes resolved as a path (`/data/notes/../secret/a` reads `/data/secret/a`), and an
 * http or https URL as the request it makes (see {@link urlReadings}). Empty when the value reads
 * only as written.
 *
 * @example
 * spellingReadings('/data/notes/..//secret/./a'); // ['/data/secret/a']
 */
export function spellingReadings(value: string): string[] {
  const readings = urlReadings(value);
  if (readings.length === 0 && value.includes('/')) readings.push(path.posix.normalize(value));
  return readings.filter((reading) => reading !== value);
}
