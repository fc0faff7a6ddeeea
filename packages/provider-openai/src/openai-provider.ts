import {
  type AttemptControl,
  baseUrlParts,
  credentialValues,
  type ModelProvider,
  type NetworkCall,
  type NetworkProviderOptions,
  networkProvider,
  providerFetch,
  type StreamEvent,
  sdkAttempt,
} from '@agentctl/core';
import OpenAI from 'openai';
import { ChunkAssembler, type ChunkLike } from './chunk-assembler.js';
import { quotaCode } from './quota-code.js';
import { toOpenAIRequest } from './to-openai-request.js';

/** Options of {@link createOpenAIProvider}. */
export interface OpenAIProviderOptions extends NetworkProviderOptions {
  /** Base URL of any OpenAI-compatible server. Default `https://api.openai.com/v1`. */
  baseURL?: string;
  organization?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Servers that predate `max_completion_tokens` (some local ones) want `max_tokens`. */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

/**
 * A model provider on the OpenAI Chat Completions API, for OpenAI and every server that speaks
 * it (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter) through `baseURL`. The SDK's own retries
 * are off: the core retry policy owns them, and retries only before the first token.
 *
 * @example
 * const provider = createOpenAIProvider({ apiKey: process.env.OPENAI_API_KEY!, defaultModel: 'gpt-4.1-mini' });
 * createAgent({ name: 'a', provider });
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const url = baseUrlParts(options.baseURL ?? 'https://api.openai.com/v1');
  return networkProvider({
    name: 'openai',
    apiKey: options.apiKey,
    keySource: options.keySource,
    defaultModel: options.defaultModel,
    timeout: options.timeout,
    retry: options.retry,
    secrets: credentialValues(options.headers, options.baseURL),
    connect: (apiKey, timeoutMs, logger) =>
      new OpenAI({
        apiKey,
        baseURL: url.base,
        defaultQuery: url.query,
        organization: options.organization ?? null,
        project: null,
        defaultHeaders: options.headers,
        maxRetries: 0,
        fetch: providerFetch,
        logger,
        // The idle timer of the retry policy is the real limit; this only bounds a call it cannot see.
        timeout: timeoutMs * 2,
      }),
    prepare: (client, params, call) => {
      const body = toOpenAIRequest(params, options.maxTokensField);
      return (control) => attempt(client, body, params.model, control, params.signal, call);
    },
  });
}

function attempt(
  client: OpenAI,
  body: ReturnType<typeof toOpenAIRequest>,
  model: string,
  control: AttemptControl,
  signal: AbortSignal | undefined,
  call: NetworkCall,
): AsyncIterable<StreamEvent> {
  return sdkAttempt<ChunkLike>({
    provider: 'openai',
    model,
    control,
    signal,
    call,
    assembler: new ChunkAssembler(model),
    open: async (attemptSignal) =>
      (await client.chat.completions.create(body, {
        signal: attemptSignal,
        maxRetries: 0,
      })) as AsyncIterable<ChunkLike>,
    describe: (error) => ({
      apiMessage: apiMessageOf(error),
      transient: isTransientStreamError(error),
      quotaExhausted: quotaCode(error),
    }),
  });
}

function apiMessageOf(error: unknown): string | undefined {
  const body = (error as { error?: { message?: unknown } } | null)?.error;
  return typeof body?.message === 'string' ? body.message : undefined;
}

// An `error` object inside a stream has no HTTP status; a server error or a rate limit may pass.
function isTransientStreamError(error: unknown): boolean {
  const e = error as { status?: unknown; type?: unknown; code?: unknown } | null;
  if (!e || e.status !== undefined) return false;
  return e.type === 'server_error' || e.code === 'server_error' || e.code === 'rate_limit_exceeded';
}
