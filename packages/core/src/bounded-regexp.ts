import vm from 'node:vm';

/** How long one use of a project's regular expression may run on one text. */
export const REGEXP_BUDGET_MS = 1000;

/** A regular expression of the project that ran past its budget on one text, and was stopped. */
export class RegExpTimeoutError extends Error {
  constructor(
    readonly pattern: string,
    budgetMs: number,
  ) {
    super(
      `the regular expression ${pattern} ran for more than ${budgetMs / 1000} s on one text and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack without end)`,
    );
    this.name = new.target.name;
  }
}

/** A regular expression whose every use stops within a budget. */
export interface BoundedRegExp {
  /** Whether the text matches, from its start (`lastIndex` is ignored); throws {@link RegExpTimeoutError}. */
  test(text: string): boolean;
  /** `text.replace(regexp, replacement)`; throws {@link RegExpTimeoutError}. */
  replace(text: string, replacement: string): string;
  /** {@link BoundedRegExp.test} of each text, all within one budget of `budgetMs`; throws {@link RegExpTimeoutError}. */
  testEach(texts: readonly string[], budgetMs: number): boolean[];
}

// When this process has V8's linear-time engine (agentctl's command line turns it on), an
// expression that engine can run (no backreference, no lookaround, no `i` or `u` flag in this V8)
// is run by it: the same matches, in time linear in the text, whatever the pattern.
// The flag is given at run time: a literal with it is a syntax error where the engine is off.
const LINEAR_FLAG = 'l';
const LINEAR_ENGINE = (() => {
  try {
    new RegExp('', LINEAR_FLAG);
    return true;
  } catch {
    return false;
  }
})();

function linearTime(regexp: RegExp): RegExp | undefined {
  if (!LINEAR_ENGINE) return undefined;
  try {
    return new RegExp(regexp.source, regexp.flags + LINEAR_FLAG);
  } catch {
    return undefined;
  }
}

const TEST = new vm.Script('re.lastIndex = 0; re.test(text)');
const REPLACE = new vm.Script('text.replace(re, replacement)');
const TEST_EACH = new vm.Script('texts.map((t) => { re.lastIndex = 0; return re.test(t); })');

/**
 * Wraps a regular expression a project wrote (a redaction pattern, an approval rule's, a schema's
 * `pattern`, a test's `matches`), which runs on what models and tools say: a text can make one
 * such as `(a+)+$` backtrack for hours, and while it runs no timer, no signal handler and no other
 * run of the process can. Each use runs in a vm context with a timeout, which V8 enforces inside
 * the regular expression too (about 0.2 ms a use); one the linear-time engine can run runs there.
 *
 * @example
 * boundedRegExp(/^(a+)+$/).test(`${'a'.repeat(60)}!`); // throws RegExpTimeoutError after 1 s
 */
export function boundedRegExp(regexp: RegExp, budgetMs = REGEXP_BUDGET_MS): BoundedRegExp {
  const linear = linearTime(regexp);
  if (linear) {
    const test = (text: string): boolean => {
      linear.lastIndex = 0;
      return linear.test(text);
    };
    return {
      test,
      replace: (text, replacement) => text.replace(linear, replacement),
      testEach: (texts) => texts.map(test),
    };
  }
  const context = vm.createContext({ re: regexp, text: '', texts: [], replacement: '' });
  const run = (script: vm.Script, budget = budgetMs): unknown => {
    try {
      return script.runInContext(context, { timeout: budget });
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
      throw new RegExpTimeoutError(String(regexp), budget);
    } finally {
      context.text = '';
      context.texts = [];
    }
  };
  return {
    test(text) {
      context.text = text;
      return run(TEST) as boolean;
    },
    replace(text, replacement) {
      context.text = text;
      context.replacement = replacement;
      return run(REPLACE) as string;
    },
    testEach(texts, budget) {
      context.texts = texts;
      return run(TEST_EACH, budget) as boolean[];
    },
  };
}

/** Whether the text matches; false when the expression was stopped for running too long. */
export function testWithin(regexp: BoundedRegExp, text: string): boolean {
  try {
    return regexp.test(text);
  } catch (error) {
    if (error instanceof RegExpTimeoutError) return false;
    throw error;
  }
}
