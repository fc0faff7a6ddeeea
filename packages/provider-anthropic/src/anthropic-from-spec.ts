import {
  AgentError,
  type ChatParams,
  type ModelProvider,
  type ModelTimingSpec,
  mapRequests,
  modelTiming,
} from '@agentctl/core';
import { createAnthropicProvider } from './anthropic-provider.js';

/** A `kind: model` document with `provider: anthropic`, after `${VAR}` resolution. */
export interface AnthropicModelSpec extends ModelTimingSpec {
  /** The model id; a request may name another. */
  model?: string;
  base_url?: string;
  api_key?: string;
  /** The variable the key comes from, named in the error when it is missing. Default `ANTHROPIC_API_KEY`. */
  api_key_env?: string;
  /** Not sent: the Messages request of the SDK has no temperature (config warns at validate time). */
  temperature?: number;
  /** Not sent either. */
  top_p?: number;
  /** `max_tokens` of each request. Default 4096. */
  max_output_tokens?: number;
  /** `prompt_caching: true`, `thinking: { budget_tokens }`, `headers`. */
  options?: Record<string, unknown>;
}

/**
 * Builds the Anthropic provider of a YAML model for the config registry. The key is looked up
 * at the first request, so `validate` and offline runs need none; a missing key then fails with
 * an error naming the variable.
 *
 * @example
 * anthropicFromSpec({ model: 'claude-sonnet-4-5', api_key: process.env.ANTHROPIC_API_KEY, options: { prompt_caching: true } });
 */
export function anthropicFromSpec(spec: AnthropicModelSpec): ModelProvider {
  const envName = spec.api_key_env ?? 'ANTHROPIC_API_KEY';
  const { prompt_caching, promptCaching, thinking, headers, ...callOptions } = spec.options ?? {};
  const budget = thinkingBudget(thinking);
  const inner = createAnthropicProvider({
    apiKey: () => {
      const key = spec.api_key || process.env[envName];
      if (key) return key;
      throw new AgentError(
        `anthropic model ${spec.model ?? '(default)'}: no API key; set ${envName} (or api_key in the model's YAML)`,
        'PROVIDER_ERROR',
        { context: { provider: 'anthropic', model: spec.model, env: envName } },
      );
    },
    baseURL: spec.base_url,
    defaultModel: spec.model,
    ...modelTiming(spec),
    maxOutputTokens: spec.max_output_tokens,
    promptCaching: (prompt_caching ?? promptCaching) === true,
    thinking: budget === undefined ? undefined : { budgetTokens: budget },
    headers: headers && typeof headers === 'object' ? (headers as Record<string, string>) : undefined,
  });
  // Temperature and top_p are dropped here on purpose: the Messages request must not carry them.
  const withDefaults = ({ temperature: _t, topP: _p, ...params }: ChatParams): ChatParams => ({
    ...params,
    model: params.model || spec.model || '',
    options: { ...callOptions, ...params.options },
  });
  return mapRequests(inner, withDefaults);
}

function thinkingBudget(value: unknown): number | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const budget =
    (value as { budget_tokens?: unknown; budgetTokens?: unknown }).budget_tokens ??
    (value as { budgetTokens?: unknown }).budgetTokens;
  return typeof budget === 'number' && budget > 0 ? budget : undefined;
}
