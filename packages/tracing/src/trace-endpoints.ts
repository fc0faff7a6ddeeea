const VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;

/**
 * Throws when an OTLP endpoint variable is set to something other than an http(s) URL: the
 * OpenTelemetry exporter would drop it for `http://localhost:4318` without a word, sending the
 * traces elsewhere than asked. The error names the variable and its value.
 *
 * @example
 * checkEndpoints({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }); // throws: not an http(s) URL
 */
export function checkEndpoints(env: Readonly<Record<string, string | undefined>>): void {
  for (const variable of VARIABLES) {
    const value = env[variable]?.trim();
    if (!value) continue;
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw new Error(
        `${variable}=${value} is not an http(s) URL: write the collector's address as http://HOST:4318`,
      );
  }
}

/** Where traces are sent, as the OTLP exporter reads the variables: the traces endpoint, the base endpoint + `/v1/traces`, or the default. */
export function traceEndpoint(env: Readonly<Record<string, string | undefined>>): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) return `${base.replace(/\/+$/, '')}/v1/traces`;
  return 'http://localhost:4318/v1/traces';
}
