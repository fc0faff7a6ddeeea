import { existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { resolveProjectPath } from '../paths.js';
import type { ToolSpec, ToolsetSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries } from './rule.js';

/**
 * An MCP server's `command`, or a command tool's `argv[0]`, written as a command line (`npx -y
 * some-pkg`): it is started without a shell, so the whole text is taken as one program's name and
 * fails with "not found". A program that really is an existing file whose path has spaces is left alone.
 */
export function commandArgs(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const set of validEntries<ToolsetSpec>(ctx, 'toolset')) {
    const mcp = set.spec.mcp as { command?: unknown; args?: unknown; cwd?: unknown };
    if (typeof mcp.command !== 'string' || mcp.command.includes('${') || mcp.command.includes('{{')) continue;
    // A `cwd` still holding `${VAR}` is only known at compile; the project folder stands in for it.
    const cwd = typeof mcp.cwd === 'string' && !mcp.cwd.includes('${') ? mcp.cwd : '.';
    const split = argumentsInCommand(mcp.command, resolve(ctx.root, cwd));
    if (!split) continue;
    const args = [...split.args, ...(Array.isArray(mcp.args) ? mcp.args.map(String) : [])];
    out.push(
      diagnostic(
        set.file,
        set.locate(['mcp', 'command']),
        'command-args',
        split.args.length === 0
          ? `the MCP server's command \`${excerpt(mcp.command)}\` has spaces around the program's name, which would be looked up as written and not be found: \`command: ${flowScalar(split.program)}\``
          : `the MCP server's command \`${excerpt(mcp.command)}\` holds its arguments too, but it is started without a shell, so the whole text would be looked up as one program and not be found; put the program in \`command\` and each argument in \`args\`: \`mcp: { command: ${flowScalar(split.program)}, args: [${args.map(flowScalar).join(', ')}] }\``,
      ),
    );
  }
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    const command = tool.spec.command;
    const program = command?.argv[0];
    if (!command || typeof program !== 'string' || program.includes('${') || program.includes('{{')) continue;
    if (command.cwd?.includes('${')) continue;
    const from = resolveProjectPath(ctx.root, tool.absFile, command.cwd ?? '.').absolute;
    const split = argumentsInCommand(program, from);
    if (!split) continue;
    const argv = [split.program, ...split.args, ...command.argv.slice(1).map(String)];
    out.push(
      diagnostic(
        tool.file,
        tool.locate(['command', 'argv', 0]),
        'command-args',
        split.args.length === 0
          ? `the program \`${excerpt(program)}\` has spaces around its name, which would be looked up as written, so every call would fail to find it: \`argv: [${argv.map(flowScalar).join(', ')}]\``
          : `the program \`${excerpt(program)}\` holds its arguments too, but a command tool runs its argv without a shell, so every call would fail to find it; give each word its own element: \`argv: [${argv.map(flowScalar).join(', ')}]\``,
      ),
    );
  }
  return out;
}

/** The program and arguments of a `command` that holds both, or undefined for one program (an existing path with spaces included). */
export function argumentsInCommand(
  command: string,
  from: string,
): { program: string; args: string[] } | undefined {
  if (!/\s/.test(command)) return undefined;
  if (isProgram(command, from)) return undefined;
  const words = splitWords(command);
  const [program, ...args] = words;
  if (program === undefined) return undefined;
  // `./my tools/server.js` that does not exist either way is a missing file (rule command-path), not a command line.
  if (program.includes('/') && !isProgram(program, from)) return undefined;
  return { program, args };
}

// Where spawn (no shell) finds a program: a name with a slash from the working directory, a bare name on PATH.
function isProgram(name: string, from: string): boolean {
  if (name.includes('/')) return isFile(isAbsolute(name) ? name : join(from, name));
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isFile(join(dir, name)));
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}

// Splits as a shell would for plain words and quotes (no expansion): what the user meant to run.
function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

// A YAML flow scalar: plain when YAML reads it back as the same string, double-quoted otherwise.
function flowScalar(text: string): string {
  const plain =
    /^(-(?=[^\s])|[A-Za-z0-9_./~+])[A-Za-z0-9_./~+=@-]*$/.test(text) &&
    !/^(true|false|null|yes|no|on|off|~|[-+]?[0-9][0-9_.eE+-]*)$/i.test(text);
  return plain ? text : JSON.stringify(text);
}
