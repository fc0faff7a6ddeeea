import { lexShellLine, type ShellWord } from './lex-shell-line.js';

/** A simple command a shell line runs, as deny and allow patterns see it. */
export interface RunCommand {
  /** Its words, quotes removed, program first (the wrappers and `NAME=value` in front dropped). */
  words: ShellWord[];
  /** Whether another command runs it (`nohup X`, `sh -c 'X'`, `find -exec X`) or it runs inside a substitution. */
  wrapped: boolean;
}

/** What a shell line runs, as far as its text tells. */
export interface ShellLineAnalysis {
  /** Every simple command, those inside substitutions and behind wrappers included. */
  commands: RunCommand[];
  /** Why some program it runs cannot be told from the text (`eval "$x"`, `. ./script`); empty when none. */
  unknown: string[];
}

// Words in front of a program that leave it unchanged: the shell's reserved words.
const RESERVED = new Set('! { } if then else elif fi do done while until'.split(' '));
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?=/;
// The shells whose `-c STRING` is read here; without `-c` they run a script no text shows.
const SHELLS = new Set('sh bash dash zsh ksh mksh ash yash posh busybox'.split(' '));
const MAX_DEPTH = 8;
const CODE_VARIABLE = /^(?:BASH_ENV|ENV|PS[0-4]|PROMPT_COMMAND|BASH_FUNC_[^=]*|SHELLOPTS|BASHOPTS)=/;

// Programs that run the rest of their words as a command, with the options each takes: `flags`
// stand alone, `valued` take the next word (or an attached value). An option not listed makes the
// program unknown, since it may take a value the program would otherwise be read from.
interface Wrapper {
  flags: string[];
  valued: string[];
  /** Words after the options before the program (`timeout DURATION`, `chroot DIR`). */
  operands?: number;
  /** `NAME=value` words before the program (`env`). */
  assignments?: boolean;
  /** The program's arguments get words the wrapper adds (`xargs`). */
  addsArguments?: boolean;
}
const WRAPPERS: Record<string, Wrapper> = {
  command: { flags: ['-p', '-v', '-V'], valued: [] },
  builtin: { flags: [], valued: [] },
  exec: { flags: ['-c', '-l'], valued: ['-a'] },
  nohup: { flags: [], valued: [] },
  time: { flags: ['-p'], valued: [] },
  env: {
    flags: ['-', '-i', '-0', '-v', '--ignore-environment', '--null', '--debug'],
    valued: ['-u', '--unset', '-C', '--chdir'],
    assignments: true,
  },
  nice: { flags: [], valued: ['-n', '--adjustment'] },
  timeout: {
    flags: ['--preserve-status', '--foreground', '-v', '--verbose'],
    valued: ['-s', '--signal', '-k', '--kill-after'],
    operands: 1,
  },
  stdbuf: { flags: [], valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  setsid: { flags: ['-c', '-f', '-w', '--ctty', '--fork', '--wait'], valued: [] },
  sudo: {
    flags: ['-E', '-H', '-n', '-P', '-S', '-b', '-k', '-A', '-B', '--preserve-env', '--non-interactive'],
    valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir'],
  },
  doas: { flags: ['-n', '-s'], valued: ['-u', '-C'] },
  chroot: { flags: ['--skip-chdir'], valued: ['--userspec', '--groups'], operands: 1 },
  xargs: {
    flags: [
      '-0',
      '-r',
      '-t',
      '-p',
      '-x',
      '-o',
      '--null',
      '--no-run-if-empty',
      '--verbose',
      '--interactive',
      '--exit',
      '--open-tty',
    ],
    valued: [
      '-a',
      '-d',
      '-E',
      '-I',
      '-L',
      '-n',
      '-P',
      '-s',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--max-lines',
      '--replace',
      '--eof',
    ],
    addsArguments: true,
  },
};
// Programs that run another program named in their words, by rules not read here.
const RUNNERS = new Set(
  'flock strace ltrace watch script su runuser unshare taskset ionice chrt setpriv nsenter systemd-run parallel'.split(
    ' ',
  ),
);
// `find` runs the words after these up to `;` or `+`, with `{}` made a file name.
const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * Reads what a shell line runs: each simple command (inside `$(...)`, backticks and subshells
 * too), with reserved words, `NAME=value` and redirections dropped, and the command behind a
 * wrapper (`env`, `command`, `exec`, `nohup`, `nice`, `timeout`, `xargs`, `sudo`, ...), a `find
 * -exec`, an `eval` of plain words, `trap` or `sh -c` with a plain string, read as well. Where the
 * text cannot tell what runs (a program named by a variable, `eval "$x"`, `. file`, `alias`, a
 * shell reading a script), `unknown` says why.
 *
 * @example
 * analyseShellLine("nohup sh -c 'rm -rf x'").commands.map((c) => c.words[0].text); // ['nohup', 'sh', 'rm']
 */
export function analyseShellLine(line: string): ShellLineAnalysis {
  const out: ShellLineAnalysis = { commands: [], unknown: [] };
  readLine(line, 0, false, out);
  return out;
}

function readLine(line: string, depth: number, wrapped: boolean, out: ShellLineAnalysis): void {
  if (depth > MAX_DEPTH) {
    out.unknown.push('it nests commands too deeply to read');
    return;
  }
  const lexed = lexShellLine(line);
  for (const inner of lexed.nested) readLine(inner, depth + 1, true, out);
  for (const words of lexed.commands) readCommand(words, depth, wrapped, out);
}

function readCommand(all: ShellWord[], depth: number, wrapped: boolean, out: ShellLineAnalysis): void {
  let start = 0;
  for (;;) {
    const word = all[start];
    if (word === undefined || word.dynamic) break;
    if (RESERVED.has(word.text) || ASSIGNMENT.test(word.text)) start++;
    // `function NAME { ...`, `coproc NAME { ...`: the body's first command follows the brace.
    else if ((word.text === 'function' || word.text === 'coproc') && all[start + 2]?.text === '{') start += 3;
    else if (word.text === 'function' && all.length === start + 2) start += 2;
    else if (word.text === 'coproc') start++;
    else break;
  }
  // `BASH_ENV=./x bash -c true` runs ./x; `PS4='$(rm x)'` and the like are code a shell may run.
  const code = all.find((word) => CODE_VARIABLE.test(word.text));
  if (code) out.unknown.push(`"${code.text}" sets a variable whose value a shell runs`);
  const words = all.slice(start);
  if (words.length === 0) return;
  out.commands.push({ words, wrapped });
  const program = words[0];
  const shown = words.map((word) => word.text).join(' ');
  if (program.dynamic) {
    out.unknown.push(`the program of "${shown}" is only known when it runs`);
    return;
  }
  const name = program.text.slice(program.text.lastIndexOf('/') + 1);
  const rest = words.slice(1);
  const unknown = (why: string): void => {
    out.unknown.push(`"${shown}" ${why}`);
  };

  const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (wrapper) {
    const at = skipOptions(rest, wrapper);
    if (typeof at === 'string') {
      unknown(at);
      return;
    }
    let i = at;
    if (wrapper.assignments) while (i < rest.length && ASSIGNMENT.test(rest[i].text)) i++;
    i += wrapper.operands ?? 0;
    const target = rest.slice(i);
    // `command -v X` only says where X is.
    if (
      target.length === 0 ||
      (name === 'command' && rest.slice(0, at).some((w) => /^-\w*[vV]/.test(w.text)))
    )
      return;
    const inner = wrapper.addsArguments ? [...target, { text: '', dynamic: true }] : target;
    readCommand(inner, depth, true, out);
    return;
  }
  if (name === 'find') {
    for (let i = 0; i < rest.length; i++) {
      if (!FIND_ACTIONS.has(rest[i].text)) continue;
      let end = i + 1;
      while (end < rest.length && rest[end].text !== ';' && rest[end].text !== '+') end++;
      const action = rest
        .slice(i + 1, end)
        .map((word) => (word.text.includes('{}') ? { ...word, dynamic: true } : word));
      readCommand(action, depth, true, out);
      i = end;
    }
    return;
  }
  if (name === 'eval' || name === 'trap') {
    const args = name === 'trap' && rest[0]?.text === '--' ? rest.slice(1) : rest;
    const code = name === 'eval' ? args : args.slice(0, 1);
    if (code.some((word) => word.dynamic)) {
      unknown('runs code only known when it runs');
      return;
    }
    if (name === 'trap' && code[0]?.text === '-') return;
    readLine(code.map((word) => word.text).join(' '), depth + 1, true, out);
    return;
  }
  // `mapfile -C CODE` runs CODE for every few lines it reads.
  if ((name === 'mapfile' || name === 'readarray') && rest.some((word) => /^-\w*C/.test(word.text))) {
    unknown('runs a callback given as text');
    return;
  }
  if (name === 'source' || name === '.') {
    unknown('runs the commands of a file');
    return;
  }
  if (RUNNERS.has(name) && rest.length > 0) {
    unknown('runs a program its words name, which is not read here');
    return;
  }
  // `hash -p /bin/rm ls` makes `ls` run rm; `enable -f` loads a builtin from a file.
  if (
    (name === 'hash' && rest.some((word) => /^-\w*p/.test(word.text))) ||
    (name === 'enable' && rest.length > 0)
  ) {
    unknown('changes what a program name runs');
    return;
  }
  if (name === 'alias' && rest.some((word) => word.text.includes('=') || word.dynamic)) {
    unknown('defines an alias, which can stand for any program');
    return;
  }
  if (SHELLS.has(name)) {
    if (name === 'busybox' && rest[0] && !rest[0].text.startsWith('-')) {
      if (!['sh', 'ash', 'bash'].includes(rest[0].text)) {
        readCommand(rest, depth, true, out);
        return;
      }
      readShell(rest.slice(1), depth, shown, out);
      return;
    }
    readShell(rest, depth, shown, out);
    return;
  }
}

// A shell given `words`: with `-c STRING`, STRING is read as a line; otherwise it runs a script
// file or its standard input, which no text here shows.
function readShell(words: ShellWord[], depth: number, shown: string, out: ShellLineAnalysis): void {
  let command = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word.dynamic) {
      out.unknown.push(`"${shown}" runs code only known when it runs`);
      return;
    }
    if (word.text === '--version' || word.text === '--help') return;
    if (word.text === '-o' || word.text === '+o' || word.text === '-O' || word.text === '+O') {
      i++;
      continue;
    }
    if (/^[-+]/.test(word.text) && word.text.length > 1) {
      if (!word.text.startsWith('--') && word.text.includes('c')) command = true;
      continue;
    }
    if (command) {
      readLine(word.text, depth + 1, true, out);
      return;
    }
    break;
  }
  out.unknown.push(`"${shown}" runs a script or its input, which no command line shows`);
}

// The index in `words` after a wrapper's options, or why they cannot be read.
function skipOptions(words: ShellWord[], wrapper: Wrapper): number | string {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i];
    if (word.dynamic) return word.text.startsWith('-') ? 'has an option only known when it runs' : i;
    const text = word.text;
    if (text === '--') return i + 1;
    if (text === '-' && wrapper.flags.includes('-')) continue;
    if (!text.startsWith('-') || text === '-') return i;
    if (text.startsWith('--')) {
      const [option] = text.split('=', 1);
      if (wrapper.flags.includes(option) || (text.includes('=') && wrapper.valued.includes(option))) continue;
      if (wrapper.valued.includes(option)) {
        i++;
        continue;
      }
      return `has an option ("${text}") whose meaning is not known here`;
    }
    // A cluster of short options, the last of which may take the rest or the next word as value.
    for (let j = 1; j < text.length; j++) {
      const option = `-${text[j]}`;
      if (wrapper.valued.includes(option)) {
        if (j === text.length - 1) i++;
        break;
      }
      // `nice -5` and `xargs -n1`-like digits are values of a number option.
      if (/\d/.test(text[j]) && j === 1) break;
      if (!wrapper.flags.includes(option)) return `has an option ("${text}") whose meaning is not known here`;
    }
  }
  return i;
}
