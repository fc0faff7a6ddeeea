import {
  logging,
  type Middleware,
  parseDuration,
  type RetryOptions,
  redaction,
  retry,
  timeout,
} from '@agentctl/core';

type Options = Record<string, unknown>;

function duration(value: unknown): number | undefined {
  return parseDuration(value as number | string | undefined);
}

/** `retry` from YAML: max_attempts, initial_delay, max_delay, on. */
export function retryFromOptions(options: Options): Middleware {
  return retry(retryOptions(options));
}

/** The options of a YAML `retry` middleware, durations read. */
export function retryOptions(options: Options): RetryOptions {
  return {
    maxAttempts: options.max_attempts as number | undefined,
    initialDelay: duration(options.initial_delay),
    maxDelay: duration(options.max_delay),
    on: options.on as Array<'model_call' | 'tool_call'> | undefined,
  };
}

/** `timeout` from YAML: model, tool (durations). */
export function timeoutFromOptions(options: Options): Middleware {
  return timeout({ model: duration(options.model), tool: duration(options.tool) });
}

/** `logging` from YAML: verbose. */
export function loggingFromOptions(options: Options): Middleware {
  return logging({ verbose: options.verbose === true });
}

/** `redaction` from YAML: patterns (regular expressions as strings), builtins, replacement. */
export function redactionFromOptions(options: Options): Middleware {
  const patterns = ((options.patterns as string[] | undefined) ?? []).map((p) => new RegExp(p, 'g'));
  return redaction({
    patterns,
    builtins: options.builtins as boolean | undefined,
    replacement: options.replacement as string | undefined,
  });
}
