import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { excerpt } from '../rules/excerpt.js';
import type { IndexedEntry } from './index-documents.js';

/** The longest glob pattern accepted (the matcher itself gives up at 64 KiB with an exception). */
export const MAX_GLOB_LENGTH = 1024;

/** Why a glob may not be used: it is too long, absolute, or climbs out of the project. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_GLOB_LENGTH)
    return `is ${pattern.length} characters long; the limit is ${MAX_GLOB_LENGTH}`;
  if (/^([\\/]|[A-Za-z]:)/.test(pattern) || pattern.startsWith('~'))
    return 'is absolute; globs are relative to the project root';
  if (pattern.split(/[\\/]+/).some((part) => part === '..' || /^\{.*\.\..*\}$/.test(part)))
    return 'leaves the project folder (`..`)';
  return undefined;
}

/**
 * The `include`, `exclude` and `tests` patterns that may reach the matcher, and a diagnostic for each that
 * may not. An exclude pattern that is dropped only matters less: it is reported all the same.
 */
export function checkGlobs(
  project: IndexedEntry | undefined,
  include: readonly string[],
  exclude: readonly string[],
  tests: readonly string[] = [],
): { include: string[]; exclude: string[]; tests: string[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const keep = (patterns: readonly string[], field: 'include' | 'exclude' | 'tests') =>
    patterns.filter((pattern, i) => {
      const problem = globProblem(pattern);
      if (problem && project)
        diagnostics.push(
          diagnostic(
            project.file,
            project.locate([field, i]),
            'glob-pattern',
            `${field} pattern \`${excerpt(pattern)}\` ${problem}`,
          ),
        );
      return problem === undefined;
    });
  return {
    include: keep(include, 'include'),
    exclude: keep(exclude, 'exclude'),
    tests: keep(tests, 'tests'),
    diagnostics,
  };
}
