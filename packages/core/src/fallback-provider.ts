import { AgentError } from './errors.js';
import type { ChatParams, ModelProvider, ModelResponse, StreamEvent } from './model.js';
import { collectStream, ownsRetries } from './model.js';
import type { RetryPolicy } from './timing/backoff.js';
import type { ModelPricing, TokenUsage } from './usage.js';

/** One model of a fallback chain. */
export interface FallbackMember {
  /** The model's configured name, shown in events. */
  name: string;
  /** The model id sent to its provider; the request's own model is used when unset. */
  model?: string;
  provider: ModelProvider;
  pricing?: ModelPricing;
}

/** Options of {@link createFallbackProvider}. */
export interface FallbackOptions {
  /** The primary first, then the models to try in order. */
  members: FallbackMember[];
  /** How long a model that failed is passed over before it is asked again, ms. Default 60000. */
  cooldownMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** The default cooldown of a fallback chain: one minute. */
export const DEFAULT_FALLBACK_COOLDOWN_MS = 60_000;

/**
 * True when a model's failure should send the request to the next model of a chain: a failure a
 * retry could fix (429, 5xx, overloaded, a timeout, a stream cut before any output) that the
 * model's own retries did not, an account out of quota, or a server that only kept the call alive. Bad requests, refused keys (400/401/403), cancels and a stream that
 * broke after output began are final everywhere.
 */
export function isFallbackError(error: unknown): boolean {
  if (!(error instanceof AgentError)) return false;
  if (error.code !== 'PROVIDER_ERROR' && error.code !== 'TIMEOUT') return false;
  // Out of quota, or only kept alive for ten timeouts, is not retried, but another model
  // (another account, another server) may well answer.
  return error.retryable || error.context.quotaExhausted === true || error.context.stalled === true;
}

// Cooldowns live apart from the provider object, so `withRetry` copies share them.
type Cooldowns = Map<string, number>;

/**
 * A provider that asks the models of a chain in turn: the first that is not cooling down, and on
 * a failure {@link isFallbackError} accepts, before any output, the next, with a `fallback`
 * stream event saying who failed, why, and the tokens the failed call spent. A model that failed
 * is passed over for `cooldownMs`, then the chain starts from it again. The final response says
 * in `servedBy` which model answered, so its usage is priced as that model's.
 *
 * @example
 * const provider = createFallbackProvider({
 *   members: [{ name: 'fast', provider: openai }, { name: 'steady', model: 'claude-haiku-4-5', provider: anthropic }],
 *   cooldownMs: 30_000,
 * });
 */
export function createFallbackProvider(options: FallbackOptions): ModelProvider {
  if (options.members.length === 0) throw new TypeError('a fallback chain needs at least one model');
  return fallbackProvider(options, new Map());
}

function fallbackProvider(options: FallbackOptions, cooldowns: Cooldowns): ModelProvider {
  const { members } = options;
  const cooldownMs = options.cooldownMs ?? DEFAULT_FALLBACK_COOLDOWN_MS;
  const now = options.now ?? Date.now;
  const provider: ModelProvider = {
    name: members[0].provider.name,
    chat: (params: ChatParams): Promise<ModelResponse> => collectStream(provider.stream(params)),
    stream: (params: ChatParams) => chainStream(params),
    dispose: async () => {
      await Promise.all(members.map((m) => m.provider.dispose?.()));
    },
  };
  if (members.every((m) => ownsRetries(m.provider))) {
    provider.withRetry = (policy: Partial<RetryPolicy>) =>
      fallbackProvider(
        {
          ...options,
          members: members.map((m) => ({ ...m, provider: m.provider.withRetry?.(policy) ?? m.provider })),
        },
        cooldowns,
      );
  }

  async function* chainStream(params: ChatParams): AsyncGenerator<StreamEvent> {
    const at = now();
    const ready = members.filter((m) => (cooldowns.get(m.name) ?? 0) <= at);
    // When every model is cooling down, the whole chain is asked again rather than none.
    const order = ready.length > 0 ? ready : members;
    for (const [index, member] of order.entries()) {
      const next = order[index + 1];
      let streamed = false;
      let failure: Error | undefined;
      const request = { ...params, model: member.model ?? params.model };
      for await (const event of member.provider.stream(request)) {
        if (event.type === 'error') {
          failure = event.error;
          break;
        }
        if (event.type === 'done') {
          const servedBy = { model: member.name, provider: member.provider.name, pricing: member.pricing };
          // `model` is what traces show: the chain member's model id unless its provider named one.
          const model = event.response.model ?? member.model;
          yield { type: 'done', response: { ...event.response, servedBy, ...(model ? { model } : {}) } };
          return;
        }
        if (event.type === 'retry') {
          // A member's own retry, before any output: the member is named, the chain not committed.
          yield { ...event, model: event.model ?? member.name };
          continue;
        }
        if (event.type !== 'fallback') streamed = true;
        yield event;
      }
      failure ??= new AgentError(`model ${member.name} ended its stream without an answer`, 'MODEL_ERROR');
      if (!next || streamed || params.signal?.aborted || !isFallbackError(failure)) {
        yield { type: 'error', error: failure };
        return;
      }
      cooldowns.set(member.name, now() + cooldownMs);
      const usage = (failure as AgentError).context.usage as TokenUsage | undefined;
      yield {
        type: 'fallback',
        from: member.name,
        to: next.name,
        error: failure,
        usage,
        pricing: member.pricing,
      };
    }
  }

  return provider;
}
