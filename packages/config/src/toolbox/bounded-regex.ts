import vm from 'node:vm';

/** How long a model's regular expression may run, over all the lines of one call. */
export const REGEX_BUDGET_MS = 2000;

/**
 * Compiles a regular expression the model wrote and returns a test of lines that stops once the
 * budget is spent: a pattern such as `(a+)+b` backtracks for hours on one line, and while it runs
 * no timer, no tool timeout and no Ctrl-C handler can run. V8 stops a vm script at its timeout,
 * regular expressions included. Throws a plain Error for an invalid pattern or a spent budget.
 *
 * @example
 * const test = boundedRegex('TODO\\(\\w+\\)');
 * test(['// TODO(ann): this', 'nothing']); // [true, false]
 */
export function boundedRegex(
  source: string,
  budgetMs = REGEX_BUDGET_MS,
): (rows: readonly string[]) => boolean[] {
  let re: RegExp;
  try {
    re = new RegExp(source);
  } catch (error) {
    throw new Error(`invalid regular expression: ${(error as Error).message}`);
  }
  const context = vm.createContext({ re, rows: [] as readonly string[] });
  const script = new vm.Script('rows.map((row) => re.test(row))');
  let left = budgetMs;
  return (rows) => {
    context.rows = rows;
    const started = performance.now();
    try {
      return script.runInContext(context, { timeout: Math.max(1, Math.ceil(left)) }) as boolean[];
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
      throw new Error(
        `the regular expression ran for more than ${budgetMs / 1000} s and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack without end)`,
      );
    } finally {
      left -= performance.now() - started;
    }
  };
}
