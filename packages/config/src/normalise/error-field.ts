import type { DataPath } from '../load/document-positions.js';
import { walkStrings } from '../rules/rule.js';

/**
 * Where in `spec` the field a normalising error names sits (`limits.timeout: "abc" is not a
 * duration`): the written `${VAR}` string whose path ends with that field (a plugin's option is
 * named by its key alone), else the field's path as named; the whole document when it names none.
 */
export function errorField(spec: unknown, message: string): DataPath {
  const match = /^([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*): /.exec(message);
  if (!match) return [];
  const field = match[1].split('.');
  let found: DataPath | undefined;
  walkStrings(spec, (text, path) => {
    if (found || !text.includes('$') || path.length < field.length) return;
    const tail = path.slice(path.length - field.length);
    if (tail.every((segment, i) => String(segment) === field[i])) found = path;
  });
  return found ?? field;
}
