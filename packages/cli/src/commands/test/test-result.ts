import type { SourceRange } from '@agentctl/config';

/** One expectation a test did not meet, at the line that states it. */
export interface Failure {
  /** The step (0-based) it belongs to. */
  turn: number;
  /** Which expectation, as written: `output.contains`, `tool_calls[1]`, `judge`. */
  expectation: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
  /** Where the expectation is written in the test's file. */
  range: SourceRange;
}

/** How one test ended: every expectation met, some not, or it could not run at all. */
export type TestStatus = 'passed' | 'failed' | 'error';

/** The outcome of one test. */
export interface TestResult {
  name: string;
  /** The test file, relative to the project root. */
  file: string;
  /** Where the test's name is written. */
  range: SourceRange;
  status: TestStatus;
  failures: Failure[];
  /** The code of the first error a step ended with though no `error:` expected it. */
  stepError?: string;
  /** The code of the first error a step ended with as its `error:` expected. */
  expectedError?: string;
  /** Why the test could not run (status `error`). */
  error?: { message: string; range: SourceRange };
  /** Wall-clock milliseconds. */
  duration: number;
}
