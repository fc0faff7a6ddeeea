import {
  type AttemptControl,
  baseUrlParts,
  credentialValues,
  type ModelProvider,
  type NetworkCall,
  type NetworkProviderOptions,
  NO_STREAM_EVENTS,
  networkProvider,
  type StreamEvent,
  sdkAttempt,
} from '@agentctl/core';
import { GoogleGenAI } from '@google/genai';
import { geminiErrorFacts } from './gemini-error.js';
import { geminiFetch } from './gemini-fetch.js';
import { type ChunkLike, ResponseAssembler } from './response-assembler.js';
import { type GeminiRequest, type GoogleThinking, toGeminiRequest } from './to-gemini-request.js';

/** Options of {@link createGoogleProvider}. */
export interface GoogleProviderOptions extends NetworkProviderOptions {
  /** Base URL of the API (the SDK's `httpOptions.baseUrl`). Default `https://generativelanguage.googleapis.com`. */
  baseURL?: string;
  /** The API version in the URL. Default `v1beta`. */
  apiVersion?: string;
  /** Thinking budget or level, for models that think. */
  thinking?: GoogleThinking;
  /** A context cache on the API (`cachedContents/...`) used as the prompt prefix. */
  cachedContent?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/**
 * A model provider on the Gemini API (`streamGenerateContent?alt=sse`), through `@google/genai`.
 * The SDK retries nothing when no `retryOptions` are given, so the core retry policy is the one
 * owner, honouring the `RetryInfo` delay of a 429; it retries only before the first token. The
 * model's parts are kept in `providerData.google` when they carry thought signatures.
 *
 * @example
 * const provider = createGoogleProvider({ apiKey: process.env.GEMINI_API_KEY!, defaultModel: 'gemini-2.5-flash' });
 * createAgent({ name: 'a', provider });
 */
export function createGoogleProvider(options: GoogleProviderOptions): ModelProvider {
  const settings = { thinking: options.thinking, cachedContent: options.cachedContent };
  const url = options.baseURL ? baseUrlParts(options.baseURL) : undefined;
  return networkProvider({
    name: 'google',
    apiKey: options.apiKey,
    keySource: options.keySource,
    defaultModel: options.defaultModel,
    timeout: options.timeout,
    retry: options.retry,
    secrets: credentialValues(options.headers, options.baseURL),
    // No `retryOptions` and no `timeout`: the SDK then neither retries nor cuts a long stream;
    // the retry policy and its idle timer own both. `vertexai: false`, or a
    // GOOGLE_GENAI_USE_VERTEXAI in the environment would send the Gemini key to Vertex AI (and
    // the SDK's notice of it to stdout).
    connect: (apiKey) =>
      new GoogleGenAI({
        apiKey,
        vertexai: false,
        httpOptions: {
          fetch: geminiFetch(url?.query),
          ...(url ? { baseUrl: url.base } : {}),
          ...(options.apiVersion ? { apiVersion: options.apiVersion } : {}),
          ...(options.headers ? { headers: options.headers } : {}),
        },
      }),
    prepare: (client, params, call) => {
      const request = toGeminiRequest(params, settings);
      return (control) => attempt(client, request, control, params.signal, call);
    },
  });
}

function attempt(
  client: GoogleGenAI,
  request: GeminiRequest,
  control: AttemptControl,
  signal: AbortSignal | undefined,
  call: NetworkCall,
): AsyncIterable<StreamEvent> {
  return sdkAttempt<ChunkLike>({
    provider: 'google',
    model: request.model,
    control,
    signal,
    call,
    assembler: new ResponseAssembler(request.model),
    open: (attemptSignal) =>
      client.models.generateContentStream({
        ...request,
        config: { ...request.config, abortSignal: attemptSignal },
      }),
    describe: (error) =>
      // The SDK's words for a 200 whose body is no event stream (a web page, a proxy that does not stream).
      error instanceof Error && error.message.startsWith('Incomplete JSON segment')
        ? { apiMessage: NO_STREAM_EVENTS, incomplete: 'empty' }
        : describeError(error),
    amend: (failure, error) => {
      const facts = geminiErrorFacts(error);
      if (facts.status && failure.context.type === undefined) failure.context.type = facts.status;
      // The RetryInfo delay is Gemini's Retry-After; the retry loop reads it from the context.
      if (facts.retryAfterMs !== undefined && failure.retryable)
        failure.context.retryAfterMs = facts.retryAfterMs;
    },
  });
}

// Gemini refuses a bad key with a 400 whose ErrorInfo says API_KEY_INVALID, not with a 401.
function describeError(error: unknown): {
  apiMessage?: string;
  keyRefused?: boolean;
  quotaExhausted?: string;
} {
  const facts = geminiErrorFacts(error);
  return {
    apiMessage: facts.message,
    ...(facts.reason === 'API_KEY_INVALID' ? { keyRefused: true } : {}),
    ...(facts.quotaExhausted ? { quotaExhausted: facts.quotaExhausted } : {}),
  };
}
