const TEMPLATE = /\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

// Programs that run code given as a string after one of these flags: a value spliced into that
// string is code the model writes, whatever quoting surrounds it.
const INLINE_CODE: Record<string, RegExp> = {
  sh: /^-[a-z]*c[a-z]*$/,
  bash: /^-[a-z]*c[a-z]*$/,
  dash: /^-[a-z]*c[a-z]*$/,
  zsh: /^-[a-z]*c[a-z]*$/,
  ksh: /^-[a-z]*c[a-z]*$/,
  ash: /^-[a-z]*c[a-z]*$/,
  fish: /^(-c|--command)$/,
  python: /^-c$/,
  python3: /^-c$/,
  node: /^(-e|-p|--eval|--print)$/,
  perl: /^-[a-zA-Z]*[eE]$/,
  ruby: /^-e$/,
};

/** The argument names templated into a string. */
export function templatedArgs(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => m[1]);
}

/** The index of the inline script in argv (`sh -c SCRIPT`, `python -c CODE`, ...), if any. */
export function scriptIndex(argv: readonly string[]): number | undefined {
  const program = argv[0]?.split('/').pop() ?? '';
  const flag = INLINE_CODE[program] ?? INLINE_CODE[program.replace(/[\d.]+$/, '')];
  if (!flag) return undefined;
  for (let i = 1; i < argv.length - 1; i++) {
    if (flag.test(argv[i])) return i + 1;
    if (!argv[i].startsWith('-')) return undefined;
  }
  return undefined;
}

/** One reason an argv may not be run as written, with the element it is about. */
export interface ArgvProblem {
  index: number;
  message: string;
}

/**
 * What is wrong with a command tool's argv: a template in argv[0] lets the model choose the
 * program; a template inside an inline script (`sh -c "... {{ args.x }}"`) is code injection.
 */
export function argvProblems(argv: readonly string[]): ArgvProblem[] {
  const problems: ArgvProblem[] = [];
  if (argv[0] !== undefined && templatedArgs(argv[0]).length > 0) {
    problems.push({
      index: 0,
      message: 'argv[0] may not use `{{ args.… }}`: the model must not choose the program that runs',
    });
  }
  const script = scriptIndex(argv);
  if (script !== undefined && templatedArgs(argv[script]).length > 0) {
    const program = argv[0].split('/').pop();
    problems.push({
      index: script,
      message: `\`{{ args.${templatedArgs(argv[script])[0]} }}\` is inside the ${program} script, where the model's text would run as code; pass the value as a separate argument and use "$1" in the script, e.g. argv: [${program}, ${argv[script - 1]}, 'grep -- "$1" notes.txt', ${program}, "{{ args.${templatedArgs(argv[script])[0]} }}"]`,
    });
  }
  return problems;
}

/** The argument names whose values land inside an inline script of the argv (never safe to match). */
export function scriptArgs(argv: readonly string[]): string[] {
  const script = scriptIndex(argv);
  return script === undefined ? [] : templatedArgs(argv[script]);
}
