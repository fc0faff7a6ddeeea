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
import Anthropic from '@anthropic-ai/sdk';
import { EventAssembler, type RawEventLike } from './event-assembler.js';
import { quotaReason } from './quota-reason.js';
import { toAnthropicRequest } from './to-anthropic-request.js';

/** Options of {@link createAnthropicProvider}. */
export interface AnthropicProviderOptions extends NetworkProviderOptions {
  /** Base URL of the API. Default `https://api.anthropic.com`. */
  baseURL?: string;
  /** `max_tokens` when a request sets no limit; the API requires one. Default 4096. */
  maxOutputTokens?: number;
  /** Mark the system prompt and the tool definitions as cacheable. */
  promptCaching?: boolean;
  /** Extended thinking, for models that support it. */
  thinking?: { budgetTokens: number };
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/**
 * A model provider on the Anthropic Messages API (streaming), through `@anthropic-ai/sdk`. The
 * SDK's own retries are off: the core retry policy owns them, and retries only before the first
 * token. Thinking blocks travel in `providerData.anthropic.thinking` and are sent back unchanged.
 *
 * @example
 * const provider = createAnthropicProvider({ apiKey: process.env.ANTHROPIC_API_KEY!, defaultModel: 'claude-sonnet-4-6' });
 * createAgent({ name: 'a', provider });
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const url = baseUrlParts(options.baseURL ?? 'https://api.anthropic.com');
  return networkProvider({
    name: 'anthropic',
    apiKey: options.apiKey,
    keySource: options.keySource,
    defaultModel: options.defaultModel,
    timeout: options.timeout,
    retry: options.retry,
    secrets: credentialValues(options.headers, options.baseURL),
    connect: (apiKey, timeoutMs, logger) =>
      new Anthropic({
        apiKey,
        baseURL: url.base,
        defaultQuery: url.query,
        defaultHeaders: options.headers,
        maxRetries: 0,
        fetch: providerFetch,
        logger,
        // The idle timer of the retry policy is the real limit; this only bounds a call it cannot see.
        timeout: timeoutMs * 2,
      }),
    prepare: (client, params, call) => {
      const body = toAnthropicRequest(params, {
        maxOutputTokens: options.maxOutputTokens ?? 4096,
        promptCaching: options.promptCaching ?? false,
        thinkingBudget: options.thinking?.budgetTokens,
      });
      return (control) => attempt(client, body, params.model, control, params.signal, call);
    },
  });
}

function attempt(
  client: Anthropic,
  body: ReturnType<typeof toAnthropicRequest>,
  model: string,
  control: AttemptControl,
  signal: AbortSignal | undefined,
  call: NetworkCall,
): AsyncIterable<StreamEvent> {
  return sdkAttempt<RawEventLike>({
    provider: 'anthropic',
    model,
    control,
    signal,
    call,
    assembler: new EventAssembler(model),
    // The SDK warns about a deprecated model on every request; sdkAttempt shows it once.
    open: async (attemptSignal) =>
      (await client.messages.create(body, {
        signal: attemptSignal,
        maxRetries: 0,
      })) as AsyncIterable<RawEventLike>,
    describe: (error) => ({
      apiMessage: apiMessageOf(error),
      transient: isTransientEvent(error),
      quotaExhausted: quotaReason(error),
    }),
  });
}

function apiMessageOf(error: unknown): string | undefined {
  const direct = (error as { apiMessage?: unknown } | null)?.apiMessage;
  if (typeof direct === 'string') return direct;
  const nested = (error as { error?: { error?: { message?: unknown } } } | null)?.error?.error?.message;
  return typeof nested === 'string' ? nested : undefined;
}

// An `error` event inside a stream has no HTTP status; its type says whether a retry may help.
function isTransientEvent(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return type === 'overloaded_error' || type === 'api_error' || type === 'rate_limit_error';
}
