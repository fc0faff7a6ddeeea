import type { Diagnostic } from '@agentctl/config';

/** The stable JSON shape of `agentctl validate --format json` (version 1). */
export interface ValidateReport {
  version: 1;
  valid: boolean;
  errorCount: number;
  warningCount: number;
  files: string[];
  diagnostics: Diagnostic[];
}

/** Diagnostics as the documented JSON report. */
export function formatJson(
  diagnostics: readonly Diagnostic[],
  files: readonly string[],
  strict: boolean,
): string {
  const errorCount = diagnostics.filter((d) => d.severity === 'error').length;
  const warningCount = diagnostics.length - errorCount;
  const report: ValidateReport = {
    version: 1,
    valid: errorCount === 0 && (!strict || warningCount === 0),
    errorCount,
    warningCount,
    files: [...files],
    diagnostics: diagnostics.map((d) => ({ ...d })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
