const TEMPLATE = /\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** How a program takes code as a string, so that the elements of an argv holding code are found. */
interface Interpreter {
  /** An option whose next element is code (`python -c CODE`, `node -e CODE`). */
  code: RegExp;
  /** An option whose next element is its value, neither code nor the end of the options. */
  value?: RegExp;
  /** An option holding code after `=` (`node --eval=CODE`). */
  attached?: RegExp;
  /** The code option ends the options: what follows is the program's own argv (python). */
  last?: boolean;
  /** A shell: `-c` anywhere among the options makes the first operand the script. */
  shell?: boolean;
}

const SHELL: Interpreter = {
  code: /^-[a-zA-Z]*c[a-zA-Z]*$/,
  value: /^[-+][a-zA-Z]*[oO]$|^--(rcfile|init-file)$/,
  shell: true,
};
const PYTHON: Interpreter = {
  code: /^-[bBdEhiIOPqsSuvx]*c$/,
  value: /^-[bBdEhiIOPqsSuvx]*[WX]$/,
  last: true,
};

// Programs that run code given as a string: a value spliced into that string is code the model
// writes, whatever quoting surrounds it.
const INTERPRETERS: Record<string, Interpreter> = {
  sh: SHELL,
  bash: SHELL,
  dash: SHELL,
  zsh: SHELL,
  ksh: SHELL,
  mksh: SHELL,
  ash: SHELL,
  fish: { code: /^(-c|--command|-C|--init-command)$/, attached: /^--(command|init-command)=/ },
  python: PYTHON,
  python3: PYTHON,
  node: {
    code: /^(-e|-p|--eval|--print)$/,
    value: /^(-r|--require|--import|--loader|--experimental-loader|-C|--conditions|--input-type)$/,
    attached: /^--(eval|print)=/,
  },
  perl: { code: /^-[a-zA-Z]*[eE]$/, value: /^-[IMm]$/ },
  ruby: { code: /^-e$/, value: /^-[Ir]$/ },
};

/** A program that runs the rest of its argv as a command, after its own options. */
interface Wrapper {
  /** An option whose next element is its value. */
  value?: RegExp;
  /** An option whose next element is a command line it splits and runs (`env -S`). */
  code?: RegExp;
  /** `NAME=value` elements before the command (env). */
  assignments?: boolean;
  /** Operands before the command (timeout's DURATION). */
  operands?: number;
}

const WRAPPERS: Record<string, Wrapper> = {
  env: { value: /^(-u|--unset|-C|--chdir)$/, code: /^(-S|--split-string)$/, assignments: true },
  nice: { value: /^(-n|--adjustment)$/ },
  nohup: {},
  setsid: {},
  exec: {},
  command: {},
  busybox: {},
  time: { value: /^(-f|--format|-o|--output)$/ },
  timeout: { value: /^(-s|--signal|-k|--kill-after)$/, operands: 1 },
  stdbuf: { value: /^(-i|-o|-e|--input|--output|--error)$/ },
  sudo: {
    value:
      /^(-u|--user|-g|--group|-D|--chdir|-C|--close-from|-h|--host|-p|--prompt|-R|--chroot|-T|--command-timeout|-U|--other-user)$/,
  },
  doas: { value: /^(-u|-C)$/ },
  xargs: { value: /^(-a|--arg-file|-d|--delimiter|-E|-I|-L|-n|--max-args|-P|--max-procs|-s|--max-chars)$/ },
};

function programName(element: string): string {
  return element.split('/').pop() ?? '';
}

function lookup<T>(table: Record<string, T>, element: string): T | undefined {
  const name = programName(element);
  return table[name] ?? table[name.replace(/[\d.]+$/, '')];
}

/** An element of an argv holding code, with the option that made it code. */
interface CodeElement {
  index: number;
  flag: string;
}

/**
 * Where the program that runs is in argv, past wrappers such as `env`, `nice` or `timeout`, and
 * the elements a wrapper itself runs as a command line (`env -S`).
 */
function unwrap(argv: readonly string[]): { program: number; code: CodeElement[] } {
  const code: CodeElement[] = [];
  let i = 0;
  for (;;) {
    const wrapper = argv[i] === undefined ? undefined : lookup(WRAPPERS, argv[i]);
    if (!wrapper) return { program: i, code };
    let operands = wrapper.operands ?? 0;
    for (i++; i < argv.length; i++) {
      const arg = argv[i];
      if (arg === '--') {
        i++;
        break;
      }
      if (wrapper.code?.test(arg)) {
        code.push({ index: i + 1, flag: arg });
        i++;
      } else if (wrapper.value?.test(arg)) i++;
      else if (arg.startsWith('-')) continue;
      else if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) continue;
      else if (operands > 0) operands--;
      else break;
    }
  }
}

// The elements holding code for an interpreter starting at argv[at].
function inlineCode(argv: readonly string[], at: number, it: Interpreter): CodeElement[] {
  const found: CodeElement[] = [];
  let shellFlag: string | undefined;
  for (let i = at + 1; i < argv.length; i++) {
    const arg = argv[i];
    const operand = arg === '--' || arg === '-' || !/^[-+]/.test(arg);
    if (it.shell) {
      // `sh -c -e SCRIPT` and `bash -o pipefail -c SCRIPT`: the script is the first operand.
      if (operand) {
        const script = arg === '--' || arg === '-' ? i + 1 : i;
        if (shellFlag !== undefined && script < argv.length) found.push({ index: script, flag: shellFlag });
        return found;
      }
      if (it.code.test(arg)) shellFlag = arg;
      if (it.value?.test(arg)) i++;
      continue;
    }
    if (it.attached?.test(arg)) found.push({ index: i, flag: arg.slice(0, arg.indexOf('=')) });
    else if (it.code.test(arg)) {
      if (i + 1 < argv.length) found.push({ index: i + 1, flag: arg });
      if (it.last) return found;
      i++;
    } else if (it.value?.test(arg)) i++;
    else if (operand) return found;
  }
  return found;
}

/** The argument names templated into a string. */
export function templatedArgs(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => m[1]);
}

// The elements of argv that a program runs as code: the script of `sh -c`, `python -c`, `node -e`
// and the like, also behind wrappers (`env sh -c`, `timeout 5 bash -o pipefail -c`).
function codeElements(argv: readonly string[]): CodeElement[] {
  const { program, code } = unwrap(argv);
  const it = argv[program] === undefined ? undefined : lookup(INTERPRETERS, argv[program]);
  return it ? [...code, ...inlineCode(argv, program, it)] : code;
}

/** One reason an argv may not be run as written, with the element it is about. */
export interface ArgvProblem {
  index: number;
  message: string;
}

/**
 * What is wrong with a command tool's argv: a template in the program (argv[0], or the program
 * a wrapper such as `env` runs) lets the model choose it; a template inside an inline script
 * (`sh -c "... {{ args.x }}"`) is code injection.
 */
export function argvProblems(argv: readonly string[]): ArgvProblem[] {
  const problems: ArgvProblem[] = [];
  const { program } = unwrap(argv);
  for (const index of new Set([0, program])) {
    if (argv[index] !== undefined && templatedArgs(argv[index]).length > 0) {
      problems.push({
        index,
        message: `argv[${index}] may not use \`{{ args.… }}\`: the model must not choose the program that runs`,
      });
    }
  }
  for (const { index, flag } of codeElements(argv)) {
    const [name] = templatedArgs(argv[index]);
    if (name === undefined) continue;
    const shown = programName(argv[program] ?? argv[0]);
    problems.push({
      index,
      message: `\`{{ args.${name} }}\` is inside the ${shown} script, where the model's text would run as code; pass the value as a separate argument and use "$1" in the script, e.g. argv: [${shown}, ${flag}, 'grep -- "$1" notes.txt', ${shown}, "{{ args.${name} }}"]`,
    });
  }
  return problems;
}

/** The argument names whose values land inside an inline script of the argv (never safe to match). */
export function scriptArgs(argv: readonly string[]): string[] {
  return codeElements(argv).flatMap(({ index }) => templatedArgs(argv[index]));
}
