import type { Message, ToolCall } from './messages.js';
import type { RetryPolicy } from './timing/backoff.js';
import type { ModelPricing, TokenUsage } from './usage.js';

/** A JSON Schema document, kept as plain data so the core depends on no schema library's types. */
export type JsonSchema = Record<string, unknown>;

/** What a model is told about one tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

/** Asks the model to answer with JSON matching a schema. */
export interface ResponseFormat {
  type: 'json_schema';
  schema: JsonSchema;
  /** A name for the schema; providers that require one get `output` when it is missing. */
  name?: string;
}

/** One request to a model. */
export interface ChatParams {
  model: string;
  /** The instruction, kept apart from the history because providers place it differently. */
  system?: string;
  messages: readonly Message[];
  tools?: ToolDefinition[];
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
  /** Provider-specific options from configuration (for example prompt caching or thinking). */
  options?: Record<string, unknown>;
}

/** Why a model stopped producing output. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/** A complete model answer. */
export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason?: FinishReason;
  /** The model that answered, as the provider names it (it may differ from the one requested). */
  model?: string;
  /** Provider-specific data the next request must send back (for example thinking blocks). */
  providerData?: Record<string, unknown>;
  /** Which model answered, set by a provider that picks among several (a fallback chain). */
  servedBy?: ServedBy;
}

/** The model that produced an answer, and its prices, so usage is counted against it. */
export interface ServedBy {
  /** The model's configured name (`kind: model` name). */
  model: string;
  /** Its provider's registry name. */
  provider: string;
  pricing?: ModelPricing;
}

/** Why a fallback chain left one model for the next: the failure that made it switch. */
export interface ModelSwitch {
  /** The configured name of the model that failed. */
  from: string;
  /** The configured name of the model asked next. */
  to: string;
  /** The failure, after that model's own retries. */
  error: Error;
  /** Tokens the failed call had spent, with the prices of the model that spent them. */
  usage?: TokenUsage;
  pricing?: ModelPricing;
}

/**
 * A provider that retries its own requests made an attempt that failed before any output, and
 * will make another: the failed attempt is a model call. Its tokens, if the server reported any,
 * are counted with the call's final answer or failure.
 */
export interface ModelRetry {
  /** The attempt that failed, 1 for the first. */
  attempt: number;
  error: Error;
  /** The wait before the next attempt, ms. */
  delayMs: number;
  /** The configured name of the model retried, set by a fallback chain (another than the one asked first). */
  model?: string;
}

/** What a streaming model call yields, ending with exactly one `done` or `error`. */
export type StreamEvent =
  | { type: 'token'; text: string }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; argumentsDelta: string }
  | { type: 'tool_call_end'; id: string; call: ToolCall }
  | { type: 'done'; response: ModelResponse }
  | { type: 'error'; error: Error }
  | ({ type: 'fallback' } & ModelSwitch)
  | ({ type: 'retry' } & ModelRetry);

/** A source of model answers: a vendor API, a local server or the offline models. */
export interface ModelProvider {
  /** The provider's registry name, such as `openai` or `offline`. */
  readonly name: string;
  /** One complete answer. */
  chat(params: ChatParams): Promise<ModelResponse>;
  /** One answer as it is produced. */
  stream(params: ChatParams): AsyncIterable<StreamEvent>;
  /** Releases connections or child processes, if the provider holds any. */
  dispose?(): Promise<void>;
  /**
   * Throws what the first request would throw for want of configuration (a missing API key), so
   * a run can refuse before it writes a session.
   */
  preflight?(): void;
  /**
   * The same provider retrying with another policy. Present on providers that retry their own
   * requests (network providers, before the first token): they own retries, so a `retry`
   * middleware configures them through this instead of repeating their attempts.
   */
  withRetry?(policy: Partial<RetryPolicy>): ModelProvider;
}

/**
 * A provider that changes each request (defaults, dropped fields) before `inner` sees it, and
 * keeps `inner`'s capabilities: disposing and owning retries.
 */
export function mapRequests(inner: ModelProvider, map: (params: ChatParams) => ChatParams): ModelProvider {
  const mapped: ModelProvider = {
    name: inner.name,
    chat: (params) => inner.chat(map(params)),
    stream: (params) => inner.stream(map(params)),
    dispose: () => inner.dispose?.() ?? Promise.resolve(),
  };
  if (inner.preflight) mapped.preflight = inner.preflight.bind(inner);
  const retrying = inner.withRetry?.bind(inner);
  if (retrying) mapped.withRetry = (policy) => mapRequests(retrying(policy), map);
  return mapped;
}

/** True when a provider retries its own requests (see {@link ModelProvider.withRetry}). */
export function ownsRetries(
  provider: ModelProvider,
): provider is ModelProvider & Required<Pick<ModelProvider, 'withRetry'>> {
  return typeof provider.withRetry === 'function';
}

/** Collects a stream into a {@link ModelResponse}, for providers whose `chat` is built on `stream`. */
export async function collectStream(events: AsyncIterable<StreamEvent>): Promise<ModelResponse> {
  for await (const event of events) {
    if (event.type === 'done') return event.response;
    if (event.type === 'error') throw event.error;
  }
  throw new Error('model stream ended without a final response');
}
