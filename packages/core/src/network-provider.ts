import {
  type ChatParams,
  collectStream,
  type ModelProvider,
  type ModelResponse,
  type StreamEvent,
} from './model.js';
import { type AttemptControl, providerStream } from './retry-policy.js';
import { type RetryPolicy, retryPolicy } from './timing/backoff.js';

/** What an attempt of a network provider may need beyond its request. */
export interface NetworkCall {
  /** The key the client was made with, never to be shown in an error. */
  apiKey: string;
  /** The idle timeout of an attempt, ms. */
  timeoutMs: number;
}

/** What {@link networkProvider} needs from a provider package: its SDK client and one attempt. */
export interface NetworkProviderSpec<Client> {
  /** The provider's registry name, such as `openai`. */
  name: string;
  /** The API key; a function is asked on the first request (so a missing key fails then, not earlier). */
  apiKey: string | (() => string);
  /** The model used when a request names none. */
  defaultModel?: string;
  /** Ms without any data from the server, before its answer starts or between events, that fail an attempt. Default 60000. */
  timeout?: number;
  /** Attempts and backoff of the retries; retries happen only before the first token. */
  retry?: Partial<RetryPolicy>;
  /** Makes the SDK client, once, at the first request; its own retries must be off. */
  connect(apiKey: string, timeoutMs: number): Client;
  /** Builds the request once per call and returns one attempt of it, made again on each retry. */
  prepare(
    client: Client,
    params: ChatParams & { model: string },
    call: NetworkCall,
  ): (control: AttemptControl) => AsyncIterable<StreamEvent>;
}

/**
 * The provider of a vendor SDK: the client made lazily with the key, each call streamed through
 * {@link providerStream} (the shared retry policy, the idle timeout, one final `error` event), and
 * `withRetry` for the retry middleware. Provider packages supply only the client and the attempt.
 *
 * @example
 * networkProvider({ name: 'acme', apiKey, connect: (key) => new Acme({ key, maxRetries: 0 }), prepare: (client, params) => (control) => acmeAttempt(client, params, control) });
 */
export function networkProvider<Client>(spec: NetworkProviderSpec<Client>): ModelProvider {
  const policy = retryPolicy(spec.retry);
  const timeoutMs = spec.timeout ?? 60_000;
  let client: Client | undefined;
  let apiKey = '';
  const connect = (): Client => {
    if (client !== undefined) return client;
    apiKey = typeof spec.apiKey === 'function' ? spec.apiKey() : spec.apiKey;
    client = spec.connect(apiKey, timeoutMs);
    return client;
  };
  const provider: ModelProvider = {
    name: spec.name,
    withRetry: (more) => networkProvider({ ...spec, retry: { ...spec.retry, ...more } }),
    chat: (params: ChatParams): Promise<ModelResponse> => collectStream(provider.stream(params)),
    stream: (params: ChatParams) =>
      providerStream({
        provider: spec.name,
        model: params.model || spec.defaultModel,
        signal: params.signal,
        policy,
        idleTimeoutMs: timeoutMs,
        secrets: () => [apiKey],
        prepare: (model) => spec.prepare(connect(), { ...params, model }, { apiKey, timeoutMs }),
      }),
    dispose: async () => {
      client = undefined;
    },
  };
  return provider;
}
