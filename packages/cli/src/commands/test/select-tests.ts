import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { didYouMean, type LoadedProject, type SpecEntry, type TestSpec } from '@agentctl/config';
import { CliError, EXIT } from '../../cli-error.js';

/**
 * The tests `agentctl test [NAME|PATH…]` runs, in file order: all of them, or those named, or
 * those in the files or folders given. A target that matches nothing is a usage error.
 */
export function selectTests(
  project: LoadedProject,
  targets: readonly string[],
  cwd: string,
): Array<SpecEntry<TestSpec>> {
  const all = [...project.specs.test.values()] as Array<SpecEntry<TestSpec>>;
  all.sort((a, b) => a.absFile.localeCompare(b.absFile) || a.range.line - b.range.line);
  if (targets.length === 0) return all;
  const chosen = new Set<SpecEntry<TestSpec>>();
  for (const target of targets) {
    const byName = all.filter((t) => t.name === target);
    const path = resolve(cwd, target);
    const byPath =
      byName.length === 0 && existsSync(path)
        ? all.filter((t) => t.absFile === path || !relative(path, t.absFile).startsWith(`..${sep}`))
        : [];
    const found = [...byName, ...byPath];
    if (found.length === 0) {
      const names = all.map((t) => t.name);
      throw new CliError(
        `no test named or found at "${target}"${didYouMean(target, names)} (tests: ${names.join(', ') || 'none'})`,
        EXIT.usage,
      );
    }
    for (const t of found) chosen.add(t);
  }
  return all.filter((t) => chosen.has(t));
}
