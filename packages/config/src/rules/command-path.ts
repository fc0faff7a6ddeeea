import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { resolveProjectPath } from '../paths.js';
import type { ToolSpec, ToolsetSpec } from '../spec-types.js';
import { argumentsInCommand } from './command-args.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries } from './rule.js';

// A program named by path (`./scripts/deploy.sh`, `/usr/local/bin/x`), not looked up on PATH,
// and written without `${VAR}` or `{{ }}`: whether it exists is known offline.
function pathLike(command: unknown): command is string {
  return (
    typeof command === 'string' && command.includes('/') && !command.includes('${') && !command.includes('{{')
  );
}

// Interpreters whose first operand is the script they run: `node server.js`, `python3 srv.py`.
const INTERPRETERS = new Set(['node', 'bun', 'python', 'python3']);
const SCRIPT = /\.(m|c)?(j|t)s$|\.py$/;

// The script an interpreter named as an MCP server's command runs, when it is written as a path.
function interpretedScript(command: unknown, args: unknown): string | undefined {
  if (typeof command !== 'string' || !INTERPRETERS.has(basename(command))) return undefined;
  const first = Array.isArray(args) ? args[0] : undefined;
  if (typeof first !== 'string' || first.startsWith('-') || first.includes('${') || first.includes('{{'))
    return undefined;
  return first.includes('/') || SCRIPT.test(first) ? first : undefined;
}

// Why a file that exists cannot be run as a program: a folder, or a file without the execute bit
// (run fails with "Permission denied"). Windows has no execute bit to check.
function notRunnable(program: string): string | undefined {
  try {
    if (statSync(program).isDirectory()) return 'is a folder';
    if (process.platform !== 'win32') accessSync(program, constants.X_OK);
    return undefined;
  } catch {
    return 'is not executable (`chmod +x` it, or start it through its interpreter: `command: node, args: [...]`)';
  }
}

/**
 * A program named by path exists where it will be run from: an MCP server's `command` (from the
 * project folder, or its `cwd`) missing, a folder or not executable, or the script its interpreter
 * runs (`node server.js`) missing, which `run` fails to start, is an error; a command tool's
 * `argv[0]` (from the tool's `cwd`, relative to its file), which fails every call, a warning,
 * as it may be built after validate runs.
 */
export function commandPath(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const set of validEntries<ToolsetSpec>(ctx, 'toolset')) {
    const mcp = set.spec.mcp as { command?: unknown; args?: unknown; cwd?: unknown };
    const cwd = typeof mcp.cwd === 'string' && !mcp.cwd.includes('${') ? mcp.cwd : '.';
    const from = typeof mcp.cwd === 'string' && cwd !== mcp.cwd ? undefined : resolve(ctx.root, cwd);
    const script = interpretedScript(mcp.command, mcp.args);
    if (from && script && !existsSync(isAbsolute(script) ? script : join(from, script))) {
      out.push(
        diagnostic(
          set.file,
          set.locate(['mcp', 'args', 0]),
          'command-path',
          `the script \`${excerpt(script)}\` that \`${excerpt(String(mcp.command))}\` would run does not exist (a relative one is taken from ${mcp.cwd === undefined ? 'the project folder' : '`cwd`'}), so the server cannot start${script.includes('node_modules/') ? ': install its package first (`npm install`)' : ''}`,
        ),
      );
    }
    if (!pathLike(mcp.command) || !from) continue;
    const program = isAbsolute(mcp.command) ? mcp.command : join(from, mcp.command);
    if (existsSync(program)) {
      const why = notRunnable(program);
      if (why)
        out.push(
          diagnostic(
            set.file,
            set.locate(['mcp', 'command']),
            'command-path',
            `the MCP server's command \`${excerpt(mcp.command)}\` ${why}, so the server cannot start`,
          ),
        );
      continue;
    }
    // `node ./server.js` is a command line, told apart by rule command-args.
    if (argumentsInCommand(mcp.command, from)) continue;
    out.push(
      diagnostic(
        set.file,
        set.locate(['mcp', 'command']),
        'command-path',
        `the MCP server's command \`${excerpt(mcp.command)}\` does not exist (a relative one is taken from ${mcp.cwd === undefined ? 'the project folder' : '`cwd`'}), so the server cannot start`,
      ),
    );
  }
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    const command = tool.spec.command;
    const program = command?.argv[0];
    if (!command || !pathLike(program)) continue;
    if (command.cwd?.includes('${')) continue;
    const from = resolveProjectPath(ctx.root, tool.absFile, command.cwd ?? '.').absolute;
    if (existsSync(isAbsolute(program) ? program : join(from, program))) continue;
    if (argumentsInCommand(program, from)) continue;
    out.push(
      diagnostic(
        tool.file,
        tool.locate(['command', 'argv', 0]),
        'command-path',
        `the command \`${excerpt(program)}\` does not exist (a relative one is taken from the tool's \`cwd\`, by default its file's folder); every call would fail`,
        'warning',
      ),
    );
  }
  return out;
}
