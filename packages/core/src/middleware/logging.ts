import type { AgentAction, Middleware } from './types.js';

/** Options of {@link logging}. */
export interface LoggingOptions {
  /** Where lines go. Default: `console.error`, so stdout stays clean for `--json`. */
  log?: (line: string) => void;
  /** Log full payloads instead of one-line summaries. */
  verbose?: boolean;
  /**
   * Applied to every text the log shows (each string of a payload, a prompt, an error message),
   * so the log holds nothing a redaction would have replaced, whatever the order of the
   * middleware: pass the agent's {@link redactor}.
   */
  redact?: (text: string) => string;
}

/**
 * Logs every action with its duration through the chain.
 *
 * @example
 * createAgent({ provider, middleware: [logging({ log: (line) => logger.info(line), redact: redactor() })] });
 */
export function logging(options: LoggingOptions = {}): Middleware {
  const log = options.log ?? ((line: string) => console.error(line));
  const redact = options.redact ?? ((text: string) => text);
  return async function loggingMiddleware(action, next) {
    const started = performance.now();
    try {
      const result = await next();
      log(
        `[${action.agent}] ${action.type} ${summarise(result, redact, options.verbose)} (${Math.round(performance.now() - started)} ms)`,
      );
      return result;
    } catch (error) {
      log(
        `[${action.agent}] ${action.type} failed: ${redact(error instanceof Error ? error.message : String(error))}`,
      );
      throw error;
    }
  };
}

function summarise(action: AgentAction, redact: (text: string) => string, verbose = false): string {
  // Each string is redacted before it is encoded: a secret with a quote or a line break in it
  // would not match its pattern once escaped.
  if (verbose)
    return JSON.stringify(action.payload, (key, value) =>
      key === 'signal' ? undefined : typeof value === 'string' ? redact(value) : value,
    );
  switch (action.type) {
    case 'loop_start':
      // Redacted whole, then cut: a cut through a secret would leave a part no pattern matches.
      return JSON.stringify(redact(action.payload.prompt).slice(0, 80));
    case 'model_call':
      return `${action.payload.request.model} with ${action.payload.request.messages.length} messages`;
    case 'model_response':
      return `${action.payload.response.toolCalls.length} tool calls, ${action.payload.usage.totalTokens} tokens`;
    case 'tool_call':
      return action.payload.call.name;
    case 'tool_result':
      return `${action.payload.call.name}${action.payload.result.isError ? ' (error)' : ''}`;
    case 'error':
      return `${action.payload.source}: ${action.payload.error.code} ${redact(action.payload.error.message)}`;
    case 'loop_end':
      return action.payload.reason;
  }
}
