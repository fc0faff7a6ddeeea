import { readFileSync } from 'node:fs';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { interpolate, MissingEnvError } from '../env/interpolate.js';
import { notUtf8 } from '../load/encoding-problem.js';
import type { IndexedEntry } from '../load/index-documents.js';
import { blockingAncestor, displayPath, resolveProjectPath, unreadableReason } from '../paths.js';
import type { MiddlewareSpec, ToolSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/** Where a path is written, and whether the file must exist. */
export interface PathUse {
  entry: IndexedEntry;
  path: Array<string | number>;
  written: string;
  mustExist: boolean;
  what: string;
  /** What must be there when it exists: a regular file of bounded size, or a folder. */
  expects?: 'file' | 'dir';
  /** The file is read as UTF-8 text (an instruction file, a script): other bytes are an error. */
  text?: boolean;
}

/**
 * Checks one path: it stays in the project and, when it must, exists. A path with `${VAR}` is
 * checked as run will resolve it, with this environment (an unset `${VAR:?}` is env-required's).
 */
export function checkPath(ctx: RuleContext, use: PathUse, rule: string): Diagnostic[] {
  const range = use.entry.locate(use.path);
  let written = use.written;
  let shown = `\`${excerpt(use.written)}\``;
  if (written.includes('$')) {
    try {
      written = interpolate(use.written, ctx.env);
    } catch (error) {
      if (error instanceof MissingEnvError) return [];
      throw error;
    }
    if (written !== use.written) {
      if (written.trim() === '' && use.mustExist) {
        const message = `${use.what} ${shown} is empty with this environment; set the variable or give a non-empty default`;
        return [diagnostic(use.entry.file, range, rule, message)];
      }
      shown += ` (\`${excerpt(written)}\` with this environment)`;
    }
  }
  const resolved = resolveProjectPath(ctx.root, use.entry.absFile, written);
  if (resolved.escapes) {
    return [diagnostic(use.entry.file, range, rule, `${use.what} ${shown} is outside the project folder`)];
  }
  if (use.mustExist && !resolved.exists) {
    return [
      diagnostic(
        use.entry.file,
        range,
        rule,
        `${use.what} ${shown} does not exist (paths are relative to the file naming them)`,
      ),
    ];
  }
  const blocker = resolved.exists ? undefined : blockingAncestor(resolved.absolute);
  if (blocker) {
    const where = displayPath(ctx.root, blocker);
    return [
      diagnostic(
        use.entry.file,
        range,
        rule,
        `${use.what} ${shown} cannot be made: ${where} is a file, not a folder`,
      ),
    ];
  }
  if (use.expects !== undefined && resolved.exists) {
    const wrong =
      use.expects === 'dir'
        ? resolved.type !== 'dir' && 'is not a folder'
        : (unreadableReason(resolved) ?? false);
    if (wrong) return [diagnostic(use.entry.file, range, rule, `${use.what} ${shown} ${wrong}`)];
    const encoding =
      use.text && resolved.type === 'file' ? notUtf8(readFileSync(resolved.absolute)) : undefined;
    if (encoding) {
      const at = `line ${encoding.line}, column ${encoding.col}`;
      const message = `${use.what} ${shown} is not UTF-8 at ${at}: ${encoding.reason}`;
      return [diagnostic(use.entry.file, range, rule, message)];
    }
  }
  if (use.what === 'module' && !/\.(m|c)?(t|j)s$/.test(written)) {
    return [diagnostic(use.entry.file, range, rule, `module ${shown} must be a .ts or .js file`)];
  }
  return [];
}

/** Module paths (tools, middleware) exist, are .ts/.js files and stay inside the project. */
export function modulePath(ctx: RuleContext): Diagnostic[] {
  const uses: PathUse[] = [];
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    if (tool.spec.module)
      uses.push({
        entry: tool,
        path: ['module', 'path'],
        written: tool.spec.module.path,
        mustExist: true,
        what: 'module',
        expects: 'file',
      });
  }
  for (const mw of validEntries<MiddlewareSpec>(ctx, 'middleware')) {
    if (mw.spec.module)
      uses.push({
        entry: mw,
        path: ['module'],
        written: mw.spec.module,
        mustExist: true,
        what: 'module',
        expects: 'file',
      });
  }
  for (const agent of validAgents(ctx)) {
    agent.spec.tools?.forEach((tool, i) => {
      if (typeof tool === 'object' && 'module' in tool)
        uses.push({
          entry: agent,
          path: ['tools', i, 'module'],
          written: tool.module,
          mustExist: true,
          what: 'module',
          expects: 'file',
        });
    });
  }
  return uses.flatMap((use) => checkPath(ctx, use, 'module-path'));
}
