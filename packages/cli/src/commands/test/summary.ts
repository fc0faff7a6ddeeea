import type { TestResult } from './test-result.js';

/** Counts of a test run. */
export interface Summary {
  total: number;
  passed: number;
  failed: number;
  errors: number;
  /** Wall-clock milliseconds of the whole run. */
  duration: number;
}

/** Counts the results of a run that took `duration` ms. */
export function summarise(results: readonly TestResult[], duration: number): Summary {
  const count = (status: TestResult['status']) => results.filter((r) => r.status === status).length;
  return {
    total: results.length,
    passed: count('passed'),
    failed: count('failed'),
    errors: count('error'),
    duration,
  };
}
