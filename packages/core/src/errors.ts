/** Machine-readable reasons a run or a step failed. */
export type AgentErrorCode =
  | 'MAX_ITERATIONS_EXCEEDED'
  | 'MAX_TOKENS_EXCEEDED'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'MODEL_ERROR'
  | 'TOOL_VALIDATION_ERROR'
  | 'TOOL_EXECUTION_ERROR'
  | 'OUTPUT_PARSE_ERROR'
  | 'PROVIDER_ERROR'
  | 'CONFIG_ERROR'
  | 'INTERNAL_ERROR';

/**
 * Who an error is down to: a configuration or API-usage mistake (`config`), the model's
 * behaviour (`model`), a tool's failure (`tool`), the provider or network (`provider`), a limit
 * the run reached (`limit`), a cancel (`cancel`), or a fault of agentctl itself (`internal`).
 */
export type ErrorBlame = 'config' | 'model' | 'tool' | 'provider' | 'limit' | 'cancel' | 'internal';

const BLAME: Record<AgentErrorCode, ErrorBlame> = {
  MAX_ITERATIONS_EXCEEDED: 'limit',
  MAX_TOKENS_EXCEEDED: 'limit',
  TIMEOUT: 'limit',
  ABORTED: 'cancel',
  MODEL_ERROR: 'model',
  TOOL_VALIDATION_ERROR: 'model',
  TOOL_EXECUTION_ERROR: 'tool',
  OUTPUT_PARSE_ERROR: 'model',
  PROVIDER_ERROR: 'provider',
  CONFIG_ERROR: 'config',
  INTERNAL_ERROR: 'internal',
};

/** Every code an {@link AgentError} can carry, for validation and documentation. */
export const AGENT_ERROR_CODES: readonly AgentErrorCode[] = [
  'MAX_ITERATIONS_EXCEEDED',
  'MAX_TOKENS_EXCEEDED',
  'TIMEOUT',
  'ABORTED',
  'MODEL_ERROR',
  'TOOL_VALIDATION_ERROR',
  'TOOL_EXECUTION_ERROR',
  'OUTPUT_PARSE_ERROR',
  'PROVIDER_ERROR',
  'CONFIG_ERROR',
  'INTERNAL_ERROR',
];

/** Options of an {@link AgentError}: what caused it, whether a retry may help, and metadata. */
export interface AgentErrorOptions {
  cause?: unknown;
  context?: Record<string, unknown>;
  /** True when repeating the same request may succeed (rate limit, overload, dropped connection). */
  retryable?: boolean;
  /** Who the error is down to; by default what its code says. */
  blame?: ErrorBlame;
}

/**
 * The one error type the runtime raises. `code` says what went wrong; `context` carries
 * metadata such as the tool or agent name; `result` (set by the loop) keeps the partial run.
 */
export class AgentError extends Error {
  /** What went wrong. */
  readonly code: AgentErrorCode;
  /** Metadata: tool name, agent name, iteration count, limit. */
  readonly context: Record<string, unknown>;
  /** True when repeating the same request may succeed. */
  readonly retryable: boolean;
  /** Who the error is down to (see {@link ErrorBlame}). */
  readonly blame: ErrorBlame;
  /** The partial result of the run this error ended, when it ended one. */
  result?: unknown;
  /**
   * Where in the agent tree it happened, root first (`['pipeline', 'writer']`), through the
   * agents that called an agent tool too; set by the first agent it passes through.
   */
  agentPath?: string[];

  constructor(message: string, code: AgentErrorCode, options: AgentErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.context = options.context ?? {};
    this.retryable = options.retryable ?? false;
    this.blame = options.blame ?? BLAME[code];
  }
}

/** True when a value is an {@link AgentError}, optionally with the given code. */
export function isAgentError(value: unknown, code?: AgentErrorCode): value is AgentError {
  return value instanceof AgentError && (code === undefined || value.code === code);
}

/** Wraps anything thrown into an {@link AgentError}, keeping an existing one as it is. */
export function toAgentError(
  value: unknown,
  code: AgentErrorCode,
  context?: Record<string, unknown>,
): AgentError {
  if (value instanceof AgentError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new AgentError(message, code, { cause: value, context });
}

/**
 * Anything thrown inside a run as an {@link AgentError}: an `AgentError` stays as it is, an API
 * misuse becomes `CONFIG_ERROR`, and anything else is a fault of ours, `INTERNAL_ERROR` (never
 * blamed on the model).
 */
export function runError(value: unknown, context?: Record<string, unknown>): AgentError {
  if (value instanceof AgentError) return value;
  return toAgentError(value, value instanceof UsageError ? 'CONFIG_ERROR' : 'INTERNAL_ERROR', context);
}

/** Thrown for a misuse of the API (a bad resume, a duplicate tool), never for a model's behaviour. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A new input given to a session that is paused: its pending calls wait for decisions first. */
export class PausedSessionError extends UsageError {
  constructor(
    readonly sessionId: string,
    /** The ids of the calls that wait for a decision. */
    readonly pending: readonly string[],
    /** The agent to resume it with: one whose tree holds the agent the calls wait in. */
    readonly agent?: string,
  ) {
    super(
      `session ${sessionId} is paused waiting for a decision on ${pending.join(', ')}; resume it with approve or deny`,
    );
  }
}

/**
 * A decision for a call the person was not shown: the session's pending call under that id has
 * another name or other arguments (the session paused again since, and the model reused the id).
 */
export class ChangedCallError extends UsageError {
  constructor(
    readonly sessionId: string,
    readonly callId: string,
    /** The call that waits now under `callId`, as `name(arguments)`. */
    readonly pending: string,
  ) {
    super(
      `session ${sessionId}: the call waiting as ${callId} is ${pending}, not the call that was decided; nothing was run, decide the call that waits now`,
    );
  }
}

/**
 * A stored session whose parts disagree (the calls it shows for a decision are not the calls a
 * resume would run): changed outside agentctl, it is not continued.
 */
export class DamagedSessionError extends UsageError {
  constructor(
    readonly sessionId: string,
    problem: string,
  ) {
    super(`session ${sessionId} cannot be resumed: ${problem} (the session was changed outside agentctl)`);
  }
}
