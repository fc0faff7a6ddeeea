import { parseDuration } from '@agentctl/core';
import { isLoopback, parsePublicUrl } from '@agentctl/server';
import { CliError, EXIT } from '../../cli-error.js';

/** `agentctl serve` options after checking. */
export interface ServeOptions {
  host: string;
  port: number;
  tokens: string[];
  corsOrigins: string[];
  graceMs: number;
  maxRuns: number;
  /** Streams of queued runs' events open at once. */
  maxFollowers: number;
  runTimeoutMs: number;
  maxBodyBytes: number;
  /** Bytes of a streamed answer held for a client that does not read. */
  maxStreamBufferBytes: number;
  /** Send run errors' own texts to clients. */
  exposeErrors: boolean;
  logFormat: 'text' | 'json';
  watch: boolean;
  /** Serve the dev UI at /ui. */
  ui: boolean;
  /** The base URL clients reach the server at, for the A2A cards. */
  publicUrl: string | undefined;
  /** Read X-Forwarded-Proto/Host for the A2A cards. */
  trustProxy: boolean;
  /** Milliseconds between heartbeat comments on event streams. */
  heartbeatMs: number;
}

/**
 * Checks the command line and the environment: a bad number or duration, a token variable that is
 * unset, or a non-loopback host without a token are usage errors (exit 2).
 */
export function serveOptions(
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
): ServeOptions {
  const host = String(raw.host ?? '127.0.0.1');
  const tokenEnv = raw.tokenEnv === undefined ? 'AGENTCTL_SERVE_TOKEN' : String(raw.tokenEnv);
  const tokenText = env[tokenEnv];
  if (raw.tokenEnv !== undefined && !tokenText)
    throw new CliError(`--token-env ${tokenEnv}: the variable is not set`, EXIT.usage);
  const tokens = (tokenText ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  if (tokens.length === 0 && !isLoopback(host)) {
    throw new CliError(
      `refusing to serve on ${host} without a token: set AGENTCTL_SERVE_TOKEN (or --token-env NAME), or serve on 127.0.0.1`,
      EXIT.usage,
    );
  }
  const logFormat = String(raw.logFormat ?? 'text');
  if (logFormat !== 'text' && logFormat !== 'json')
    throw new CliError('--log-format must be text or json', EXIT.usage);
  return {
    host,
    port: integer(raw.port, '--port', 8787, 0, 65535),
    tokens,
    corsOrigins: (raw.cors as string[] | undefined) ?? [],
    graceMs: duration(raw.grace, '--grace', 10_000),
    maxRuns: integer(raw.maxRuns, '--max-runs', 64, 1, 1_000_000),
    maxFollowers: integer(raw.maxFollowers, '--max-followers', 256, 1, 1_000_000),
    runTimeoutMs: positive(duration(raw.timeout, '--timeout', 5 * 60_000), '--timeout'),
    maxBodyBytes: integer(raw.maxBody, '--max-body', 1024 * 1024, 1, 2 ** 31),
    maxStreamBufferBytes: integer(raw.maxStreamBuffer, '--max-stream-buffer', 1024 * 1024, 1024, 2 ** 31),
    exposeErrors: raw.exposeErrors === true,
    logFormat,
    watch: raw.watch === true,
    ui: raw.ui === true,
    publicUrl: publicUrl(raw.publicUrl),
    trustProxy: raw.trustProxy === true,
    heartbeatMs: heartbeat(duration(raw.heartbeat, '--heartbeat', 15_000)),
  };
}

function publicUrl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return parsePublicUrl(String(value));
  } catch (error) {
    throw new CliError(
      `--public-url: ${(error as Error).message} (give the address clients reach the server at, such as https://agents.example.com)`,
      EXIT.usage,
    );
  }
}

// Nothing would be left of the stream but comments below 10 ms; above an hour every proxy has
// closed a quiet connection long before (and the page waits three beats before it gives up).
function heartbeat(ms: number): number {
  if (ms >= 10 && ms <= 3_600_000) return ms;
  throw new CliError(`--heartbeat must be from 10ms to 1h, not ${ms} ms`, EXIT.usage);
}

/** A whole number option within bounds, or a usage error naming the flag. */
export function integer(value: unknown, flag: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliError(
      `${flag} must be a whole number from ${min} to ${max}, not ${String(value)}`,
      EXIT.usage,
    );
  return n;
}

/** A duration option in milliseconds, or a usage error naming the flag. */
export function duration(value: unknown, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  try {
    return parseDuration(String(value), flag);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
}

// A run timeout of nothing would end every run as TIMEOUT before it began: a server that never answers.
function positive(ms: number, flag: string): number {
  if (ms > 0) return ms;
  throw new CliError(`${flag} must be longer than 0 (every run would end at once as TIMEOUT)`, EXIT.usage);
}
