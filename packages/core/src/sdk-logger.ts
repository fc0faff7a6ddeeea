import { redactSecrets } from './credential-values.js';

/** The logger interface the OpenAI and Anthropic SDKs take (`logger` in their client options). */
export interface SdkLogger {
  error(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}

/** The longest string an SDK's log line shows: a server's 10 MB line of non-JSON is cut there. */
export const SDK_LOG_TEXT_LIMIT = 10_000;

/**
 * A logger for a vendor SDK that writes everything to stderr, with `secrets` (the key and the
 * client's other credentials) redacted and huge strings cut at {@link SDK_LOG_TEXT_LIMIT}. The
 * SDKs log through `console`, whose `info` and `debug` go to stdout, so `OPENAI_LOG=debug` would
 * mix request dumps into the answer and break `--json`; they mask only the headers they know
 * (`Authorization`, `api-key`), so a gateway's `Helicone-Auth` was dumped as it is; and they log
 * a line of a stream that is not JSON whole. `warn` stays `console.warn`, looked up at each call,
 * so {@link sdkWarningsOnce} still catches the SDK's repeated warnings.
 *
 * @example
 * new OpenAI({ apiKey, logger: sdkLogger([apiKey]) });
 */
export function sdkLogger(secrets: readonly string[] = []): SdkLogger {
  const clean = (args: unknown[]) => args.map((arg) => cleaned(arg, secrets, 0));
  return {
    error: (...args) => console.error(...clean(args)),
    warn: (...args) => console.warn(...clean(args)),
    info: (...args) => console.error(...clean(args)),
    debug: (...args) => console.error(...clean(args)),
  };
}

/** {@link sdkLogger} with no secret to redact. */
export const stderrLogger: SdkLogger = sdkLogger();

// Strings, arrays and plain objects (the SDKs' request and response dumps) are cleaned; anything
// else (an Error, a Headers object) is logged as it is.
function cleaned(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') {
    const text = redactSecrets(value, secrets);
    return text.length <= SDK_LOG_TEXT_LIMIT
      ? text
      : `${text.slice(0, SDK_LOG_TEXT_LIMIT)}… (${text.length} characters)`;
  }
  if (depth > 6 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => cleaned(item, secrets, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, cleaned(item, secrets, depth + 1)]),
  );
}
