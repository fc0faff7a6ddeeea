import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configAssets } from '../assets.js';
import { displayPath, isInside } from '../paths.js';

/** What is known of an error a module threw as it loaded (in this process or across a worker). */
export interface ModuleLoadFailure {
  name?: string;
  message: string;
  stack?: string;
}

/** Where in a module's own code its load failed, 1-based, with the message to show when it differs. */
export interface ModuleErrorPlace {
  file: string;
  line: number;
  column: number;
  message?: string;
}

const PACKAGE = /[\\/]node_modules[\\/]/;
const TRANSFORM = /^Transform failed with \d+ errors?:\n(.+?):(\d+):(\d+): ERROR: (.*)/;

/**
 * Where a module's load failed, in `files` (the module and what it imports, absolute paths): tsx's
 * transform error says it (0-based column); V8 gives no position for a syntax error of an ES module,
 * so the files are parsed again with esbuild (tsx's own) until one fails; a throw is placed at its
 * first stack frame in them. Undefined when none of these finds it (a missing package, a missing
 * export: their message already names the module).
 */
export function locateModuleError(
  error: ModuleLoadFailure,
  files: readonly string[],
  /**
   * Place a throw at its first frame in any file outside node_modules and agentctl's own (the
   * import's files unknown).
   */
  anyFrame = false,
): ModuleErrorPlace | undefined {
  const transform = TRANSFORM.exec(error.message);
  if (transform)
    return { file: transform[1], line: +transform[2], column: +transform[3] + 1, message: transform[4] };
  const ours = files.filter((file) => !PACKAGE.test(file));
  if (error.name === 'SyntaxError') return syntaxErrorPlace([...ours].reverse());
  for (const frame of (error.stack ?? '').split('\n').slice(1)) {
    // A path starts the location: `node:internal/async_hooks:130:17` is Node's, not a file.
    const m = /(?:^|[\s(])(file:\/\/[^\s()]+?|\/[^\s()]+?):(\d+):(\d+)\)?$/.exec(frame.trim());
    if (!m) continue;
    const file = pathOf(m[1]);
    if (file && (ours.includes(file) || (anyFrame && !PACKAGE.test(file) && !isAgentctls(file))))
      return { file, line: +m[2], column: +m[3] };
  }
  return undefined;
}

/**
 * The message of a module's failed load, led by the place in its code when {@link locateModuleError}
 * finds it (`lib/util.js:2:18: Unexpected token ';'`), the path as a person reads it from `cwd`.
 */
export function moduleLoadMessage(
  error: ModuleLoadFailure,
  files: readonly string[],
  anyFrame = false,
  cwd = process.cwd(),
): string {
  const at = locateModuleError(error, files, anyFrame);
  if (!at) return readable(error.message);
  return `${displayPath(cwd, at.file)}:${at.line}:${at.column}: ${readable(at.message ?? error.message)}`;
}

// Node's message of a package it cannot find, without what only a stack reader wants (the
// "Require stack" of a .ts compiled to CommonJS, tsx's `?namespace=` on the importing file), and
// saying what to do: the module imports a package the project has not installed.
function readable(message: string): string {
  const text = message.replace(/\nRequire stack:[\s\S]*$/, '').replace(/\?namespace=[\w-]+/g, '');
  const missing = /^Cannot find (?:module|package) '((?:@[^'/]+\/)?[^'./][^'/]*)[^']*'/.exec(text);
  return missing ? `${text} (is \`${missing[1]}\` installed in the project? \`npm install\` it)` : text;
}

// The one esbuild call used here (esbuild comes with tsx; this package does not depend on it).
interface Esbuild {
  transformSync(source: string, options: { loader: string; sourcefile: string; logLevel: 'silent' }): unknown;
}

// Tried last file first: the import fails on the file it reached last.
function syntaxErrorPlace(files: readonly string[]): ModuleErrorPlace | undefined {
  let esbuild: Esbuild;
  try {
    esbuild = createRequire(configAssets().tsxApiUrl())('esbuild') as Esbuild;
  } catch {
    return undefined;
  }
  for (const file of files) {
    const loader = /\.[cm]?([jt]sx?)$/.exec(file)?.[1];
    if (!loader) continue;
    try {
      esbuild.transformSync(readFileSync(file, 'utf8'), { loader, sourcefile: file, logLevel: 'silent' });
    } catch (failed) {
      const at = (failed as { errors?: Array<{ location?: { line: number; column: number } | null }> })
        .errors?.[0]?.location;
      if (at) return { file, line: at.line, column: at.column + 1 };
    }
  }
  return undefined;
}

// agentctl's packages sit side by side (a workspace, or node_modules/@agentctl once installed).
function isAgentctls(file: string): boolean {
  return isInside(dirname(configAssets().root), file);
}

function pathOf(location: string): string | undefined {
  const bare = location.replace(/[?#].*$/, '');
  try {
    return bare.startsWith('file:') ? fileURLToPath(bare) : bare;
  } catch {
    return undefined;
  }
}
