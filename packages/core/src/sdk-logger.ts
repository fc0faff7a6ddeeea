/** The logger interface the OpenAI and Anthropic SDKs take (`logger` in their client options). */
export interface SdkLogger {
  error(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}

/**
 * A logger for a vendor SDK that writes everything to stderr. The SDKs log through `console`,
 * whose `info` and `debug` go to stdout, so `OPENAI_LOG=debug` would mix request dumps into the
 * answer and break `--json`. `warn` stays `console.warn`, looked up at each call, so
 * {@link sdkWarningsOnce} still catches the SDK's repeated warnings.
 *
 * @example
 * new OpenAI({ apiKey, logger: stderrLogger });
 */
export const stderrLogger: SdkLogger = {
  error: (...args) => console.error(...args),
  warn: (...args) => console.warn(...args),
  info: (...args) => console.error(...args),
  debug: (...args) => console.error(...args),
};
