const VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'] as const;

/**
 * Throws when an OTLP timeout variable is set to something other than a whole number of
 * milliseconds above 0 (`2s`, `0`, `-1`): the OpenTelemetry exporter would use its 10 s default
 * without a word, so the end of a command could wait longer than asked. The error names the variable.
 *
 * @example
 * checkExportTimeout({ OTEL_EXPORTER_OTLP_TIMEOUT: '2s' }); // throws: not a number of milliseconds
 */
export function checkExportTimeout(env: Readonly<Record<string, string | undefined>>): void {
  for (const variable of VARIABLES) {
    const value = env[variable]?.trim();
    if (!value) continue;
    if (!/^\d+$/.test(value) || Number(value) <= 0)
      throw new Error(
        `${variable}=${value} is not a number of milliseconds above 0 (the exporter's timeout, such as 10000)`,
      );
  }
}
