import { type BoundedRegExp, boundedRegExp, RegExpTimeoutError } from '@agentctl/core';

/** How long a model's regular expression may run, over all the lines of one call. */
export const REGEX_BUDGET_MS = 2000;

/**
 * Compiles a regular expression the model wrote and returns a test of lines that stops once the
 * budget is spent: a pattern such as `(a+)+b` backtracks for hours on one line, and while it runs
 * no timer, no tool timeout and no Ctrl-C handler can run. The lines run through core's
 * `boundedRegExp` (V8's linear-time engine, or a vm timeout); the budget is shared by every call
 * of the test. Throws a plain Error for an invalid pattern or a spent budget.
 *
 * @example
 * const test = boundedRegex('TODO\\(\\w+\\)');
 * test(['// TODO(ann): this', 'nothing']); // [true, false]
 */
export function boundedRegex(
  source: string,
  budgetMs = REGEX_BUDGET_MS,
): (rows: readonly string[]) => boolean[] {
  let re: BoundedRegExp;
  try {
    re = boundedRegExp(new RegExp(source));
  } catch (error) {
    throw new Error(`invalid regular expression: ${(error as Error).message}`);
  }
  let left = budgetMs;
  return (rows) => {
    const started = performance.now();
    try {
      return re.testEach(rows, Math.max(1, Math.ceil(left)));
    } catch (error) {
      if (!(error instanceof RegExpTimeoutError)) throw error;
      throw new Error(
        `the regular expression ran for more than ${budgetMs / 1000} s and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack without end)`,
      );
    } finally {
      left -= performance.now() - started;
    }
  };
}
