import {
  type AnyTool,
  confinedPath,
  defineTool,
  globMatcher,
  OutputLimitError,
  type Roots,
  runProcess,
} from '@agentctl/core';
import { analyseShellLine, type RunCommand } from './analyse-shell-line.js';
import { globCouldMatch } from './glob-could-match.js';

/** Options of the `shell` built-in (camelCase, paths absolute). */
export interface ShellOptions {
  /** Folders commands may run in; relative `cwd`s start in the first. Default: the project. */
  root: Roots;
  /** Commands that run without asking: `*` globs on the whole command line, e.g. `git status*`. */
  allow?: string[];
  /** Commands refused outright: `*` globs matched on the command line and on each simple command of it. */
  deny?: string[];
  /** Milliseconds a command may take. Default 60000. */
  timeout?: number;
  /** Bytes of output after which a command is stopped. Default 65536. */
  maxOutputBytes?: number;
  /** The program given the command with `-c`. Default `sh`. */
  program?: string;
  /** The environment of the commands (PATH and the declared names only). */
  env?: Record<string, string>;
}

// A command holding one of these is more than one simple command; an allow pattern says nothing
// about what follows a `;`, a `$(...)` or a redirection, so such a command is always asked about.
const COMPOUND = /[;&|$`<>()\n\r\\]/;

// The shell decides which program runs from the first word, and an allow pattern reads it as
// text: `ls*` matches `ls=x rm -rf ~` (an assignment, then rm runs) and `ls*/../../bin/rm` (a glob
// the shell expands into a path). So a command runs unasked only when its first word is a plain
// program name or path, with nothing the shell would read another way.
const PLAIN_WORD = /^[A-Za-z0-9_./+,:@%-]+$/;

/** Whether the first word of a command line is what the shell will run, as written. */
function plainProgram(command: string): boolean {
  return PLAIN_WORD.test(command.trim().split(/[ \t]/, 1)[0]);
}

// The texts a pattern is matched on for one command: as the shell reads its words, with the
// program named by its last path segment (`/bin/rm` as `rm`), and with the options the program
// takes before its first other word left out (see withoutLeadingOptions).
function forms(words: string[]): string[] {
  const program = words[0].slice(words[0].lastIndexOf('/') + 1);
  const programs = program === words[0] || program === '' ? [words[0]] : [words[0], program];
  const rests = withoutLeadingOptions(words.slice(1));
  return [...new Set(programs.flatMap((name) => rests.map((rest) => [name, ...rest].join(' '))))];
}

// A program's options before its subcommand (`git -C dir push`, `git -c k=v push`, `npm
// --prefix x publish`) would hide the subcommand from `git push*`. Which option takes a value is
// the program's own business, so each option may or may not have taken the next word: every way
// of leaving out a run of leading options (and maybe their values) is a form. A deny pattern
// matching any of them refuses more, never less; allow patterns are not matched on these.
function withoutLeadingOptions(rest: string[]): string[][] {
  const isOption = (word: string) => word.startsWith('-') && word !== '-' && word !== '--';
  // Where the words after the options may start: after an option, or after an option and its value.
  const starts = new Set([0]);
  for (let at = 0; at < rest.length && starts.has(at); at++) {
    if (!isOption(rest[at])) continue;
    starts.add(at + 1);
    if (!rest[at].includes('=') && at + 1 < rest.length) starts.add(at + 2);
  }
  return [...starts].filter((at) => at <= rest.length).map((at) => rest.slice(at));
}

const text = (command: RunCommand) => command.words.map((word) => word.text);

/** Why a command line is refused: the deny pattern it matches, or what keeps it from being checked. */
type Refusal = { pattern: string } | { unchecked: string };

/** The refusal of a command line by `deny` patterns, if any. */
function refusal(
  line: string,
  deny: Array<{ pattern: string; match: (value: string) => boolean }>,
): Refusal | undefined {
  if (deny.length === 0) return undefined;
  const analysis = analyseShellLine(line);
  for (const { pattern, match } of deny) {
    if (match(line.trim())) return { pattern };
    for (const command of analysis.commands) if (forms(text(command)).some(match)) return { pattern };
  }
  if (analysis.unknown.length > 0) return { unchecked: analysis.unknown[0] };
  // A word the shell builds may be anything, nothing at all or many words: the command could match
  // a pattern that its words before that one could begin.
  for (const command of analysis.commands) {
    const at = command.words.findIndex((word) => word.dynamic);
    if (at < 0) continue;
    const prefix = forms(text(command).slice(0, at).concat([''])).map((form) => form.trimEnd());
    const pattern = deny.find((rule) => prefix.some((form) => globCouldMatch(rule.pattern, form)))?.pattern;
    if (pattern)
      return {
        unchecked: `part of "${text(command).join(' ')}" is only known when it runs and could match the deny pattern "${pattern}"`,
      };
  }
  return undefined;
}

/**
 * The `shell` built-in: runs a command line with `sh -c` in a confined working folder, in its
 * own process group (killed on timeout and cancel), output capped. Every command asks first,
 * except simple commands, run by a plain program name, matching an `allow` pattern; `deny`
 * patterns are refused, and so is a line, when there are `deny` patterns, whose programs cannot
 * all be told from its text.
 *
 * @example
 * shell({ root: '/work/project', allow: ['ls', 'ls *', 'git status'], deny: ['rm *'] });
 */
export function shell(options: ShellOptions): AnyTool {
  const allow = (options.allow ?? []).map((pattern) => globMatcher(pattern));
  const deny = (options.deny ?? []).map((pattern) => ({ pattern, match: globMatcher(pattern) }));
  const allowed = (command: string) => {
    if (!allow.some((match) => match(command.trim())) || COMPOUND.test(command) || !plainProgram(command))
      return false;
    // A wrapper's program must be allowed too: `nohup *` does not let `nohup rm -rf x` through.
    const analysis = analyseShellLine(command);
    return (
      analysis.unknown.length === 0 &&
      analysis.commands.every((run) => !run.wrapped || allow.some((match) => match(text(run).join(' '))))
    );
  };
  const timeout = options.timeout ?? 60_000;
  const limit = options.maxOutputBytes ?? 64 * 1024;
  const program = options.program ?? 'sh';
  const tool = defineTool<
    { command: string; cwd?: string },
    { exit_code: number | null; stdout: string; stderr: string }
  >({
    name: 'shell',
    description:
      'Runs a shell command line and returns its exit code, stdout and stderr. `cwd` is a folder relative to the project.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'The command line, e.g. "ls -la src"' },
        cwd: { type: 'string', description: 'Working folder relative to the project. Default "."' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    timeout,
    needsApproval: (args) => {
      const command = String(args.command ?? '');
      if (refusal(command, deny)) return false; // refused when run, without bothering anyone
      return !allowed(command);
    },
    async execute({ command, cwd }, { signal }) {
      const refused = refusal(command, deny);
      if (refused && 'pattern' in refused)
        throw new Error(`the command matches the deny pattern "${refused.pattern}"; it was not run`);
      if (refused)
        throw new Error(
          `cannot check the command against the deny rules: ${refused.unchecked}; it was not run. Write each program and its arguments out plainly`,
        );
      // A command can read .env itself (`cat .env`), so a private cwd is no more than that.
      const folder = await confinedPath(options.root, cwd ?? '.', { allowPrivate: true });
      try {
        const out = await runProcess([program, '-c', command], {
          cwd: folder,
          env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          maxOutputBytes: limit,
          signal,
        });
        return { exit_code: out.code, stdout: out.stdout, stderr: out.stderr };
      } catch (error) {
        if (error instanceof OutputLimitError)
          throw new Error(`the command wrote more than ${limit} bytes (max_output_bytes); stopped`);
        throw error;
      }
    },
  });
  return { ...tool, shellArguments: ['command'] };
}
