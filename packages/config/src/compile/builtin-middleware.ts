import {
  logging,
  type Middleware,
  type RedactionOptions,
  type RetryOptions,
  redaction,
  retry,
  timeout,
} from '@agentctl/core';
import type { FactoryContext } from '../registry.js';

// Options arrive normalised (camelCase, durations in ms: see normaliseOptions).
type Options = Record<string, unknown>;

/** `retry`: maxAttempts, initialDelay, maxDelay (ms), on. */
export function retryFromOptions(options: Options): Middleware {
  return retry(retryOptions(options));
}

/** The options of a `retry` middleware, typed. */
export function retryOptions(options: Options): RetryOptions {
  return {
    maxAttempts: options.maxAttempts as number | undefined,
    initialDelay: options.initialDelay as number | undefined,
    maxDelay: options.maxDelay as number | undefined,
    on: options.on as Array<'model_call' | 'tool_call'> | undefined,
  };
}

/** `timeout`: model, tool (ms). */
export function timeoutFromOptions(options: Options): Middleware {
  return timeout({ model: options.model as number | undefined, tool: options.tool as number | undefined });
}

/** `logging`: verbose; what it writes is redacted as the agent's `redaction` middleware would. */
export function loggingFromOptions(options: Options, ctx?: Pick<FactoryContext, 'redact'>): Middleware {
  return logging({ verbose: options.verbose === true, redact: ctx?.redact });
}

/** `redaction`: patterns (regular expressions as strings), builtins, replacement. */
export function redactionFromOptions(options: Options): Middleware {
  return redaction(redactionOptions(options));
}

/** The options of a `redaction` middleware, typed; throws on a pattern that is no regular expression. */
export function redactionOptions(options: Options): RedactionOptions {
  return {
    patterns: ((options.patterns as string[] | undefined) ?? []).map((p) => new RegExp(p, 'g')),
    builtins: options.builtins as boolean | undefined,
    replacement: options.replacement as string | undefined,
  };
}
