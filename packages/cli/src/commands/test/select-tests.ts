import { statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { didYouMean, displayPath, type LoadedProject, type SpecEntry, type TestSpec } from '@agentctl/config';
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
    const found = statSync(path, { throwIfNoEntry: false });
    const byPath =
      byName.length === 0 && found
        ? all.filter((t) => t.absFile === path || !relative(path, t.absFile).startsWith(`..${sep}`))
        : [];
    if (byName.length + byPath.length === 0) {
      // A file or folder that is there: say why it holds no test, not that it was not found.
      if (found) throw new CliError(noTestsAt(project, path, found.isDirectory()), EXIT.usage);
      const names = all.map((t) => t.name);
      throw new CliError(
        `no test named or found at "${target}"${didYouMean(target, names)} (tests: ${names.join(', ') || 'none'})`,
        EXIT.usage,
      );
    }
    for (const t of [...byName, ...byPath]) chosen.add(t);
  }
  return all.filter((t) => chosen.has(t));
}

/** The globs `agentctl test` reads tests from: the project's `tests:`, else the default one. */
export function testGlobs(project: LoadedProject): readonly string[] {
  return project.specs.project?.spec.tests ?? ['tests/**/*.yaml'];
}

// Why a file or folder that exists gave no test: outside the globs, or read and holding none.
function noTestsAt(project: LoadedProject, path: string, folder: boolean): string {
  const shown = displayPath(project.root, path);
  const globs = testGlobs(project).join(', ');
  if (folder)
    return `no test file under ${shown}: tests are read from ${globs} (\`tests:\` in agentctl.yaml)`;
  if (!project.files.includes(path))
    return `${shown} is not a test file of the project: tests are read from ${globs}; add it to \`tests:\` in agentctl.yaml`;
  return `${shown} holds no \`kind: test\` document`;
}
