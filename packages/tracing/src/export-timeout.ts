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

/** How long the end of a command waits for the collector when no OTLP timeout is set, ms. */
export const EXIT_WAIT_MS = 2000;

/**
 * How long shutting tracing down may wait for the collector, ms: the OTLP timeout when one is set
 * (the exporter's own failure, a moment earlier, then says why), else {@link EXIT_WAIT_MS}, so
 * a collector that hangs does not hold a short run for the exporter's 10 s default.
 */
export function exitWaitMs(env: Readonly<Record<string, string | undefined>>): number {
  for (const variable of VARIABLES) {
    const value = Number(env[variable]?.trim());
    if (Number.isInteger(value) && value > 0) return value + EXIT_WAIT_MARGIN_MS;
  }
  return EXIT_WAIT_MS;
}

// Past the exporter's own timeout, so its failure (which names the cause) comes first.
const EXIT_WAIT_MARGIN_MS = 500;
