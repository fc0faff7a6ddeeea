import type { Tracing } from '@agentctl/tracing';
import { CliError, EXIT } from './cli-error.js';
import type { Io } from './io.js';

/** The commands that run agents, and so can be traced. */
export const TRACED_COMMANDS: ReadonlySet<string> = new Set(['run', 'serve', 'dev', 'worker', 'test']);

let active: Tracing | undefined;

/**
 * Whether a command traces: `--trace` or `--trace-content`, or an OTLP endpoint in the environment,
 * unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` says otherwise.
 */
export function tracingRequested(
  options: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return (
    options.trace === true ||
    options.traceContent === true ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT)
  );
}

/**
 * Starts tracing for a command when asked; OpenTelemetry is imported only then. The caller shuts
 * the result down on every exit path, so spans are flushed before the process ends; a collector
 * that cannot be reached is reported on stderr and never changes the exit code.
 */
export async function startCommandTracing(
  command: string,
  options: Record<string, unknown>,
  io: Pick<Io, 'env' | 'stderr'>,
): Promise<Tracing | undefined> {
  const env = io.env;
  if (!TRACED_COMMANDS.has(command) || !tracingRequested(options, env)) return undefined;
  const { checkEndpoints, checkExportTimeout, protocolOf, samplerOf, startTracing } = await import(
    '@agentctl/tracing'
  );
  try {
    protocolOf(env);
    checkEndpoints(env);
    checkExportTimeout(env);
    samplerOf(env);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  const captureContent =
    options.traceContent === true ||
    env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true';
  active = await startTracing({ env, captureContent });
  const tracing = active;
  return {
    scrubWith: (scrubber) => tracing.scrubWith(scrubber),
    flush: () => tracing.flush(),
    shutdown: async () => {
      if (active === tracing) active = undefined;
      try {
        await tracing.shutdown();
      } catch (error) {
        io.stderr(`agentctl: traces were not exported: ${(error as Error).message}\n`);
      }
    },
  };
}

/** Makes the traces of the running command scrub this project's secrets (a no-op when not tracing). */
export function traceSecrets(runtime: { scrub(text: string): string }): void {
  active?.scrubWith(runtime);
}
