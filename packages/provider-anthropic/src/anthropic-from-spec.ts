import {
  apiKeyLookup,
  apiKeySource,
  type ChatParams,
  type ModelDefinition,
  type ModelProvider,
  mapRequests,
} from '@agentctl/core';
import { createAnthropicProvider } from './anthropic-provider.js';

/** The `options:` of an Anthropic model once normalised (see `ANTHROPIC_OPTIONS_SCHEMA`). */
interface AnthropicOptions {
  promptCaching?: boolean;
  headers?: Record<string, string>;
}

/** The thinking budget of a reasoning effort when no `budget_tokens` is given. */
export const THINKING_BUDGET_OF_EFFORT: Readonly<Record<string, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16_384,
};

/**
 * Builds the Anthropic provider of a model definition for the config registry. The key is looked
 * up at the first request, so `validate` and offline runs need none; a missing key then fails with
 * an error naming the variable (read from `vars`: the project's environment over its .env). `reasoning` turns on extended thinking: `budgetTokens`, else the
 * budget of its `effort`; `max_tokens` is then maxOutputTokens + budget, so the answer keeps its
 * own limit. `parallelToolCalls: false` is sent as `tool_choice.disable_parallel_tool_use`.
 *
 * @example
 * anthropicFromSpec({ name: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-5', options: { promptCaching: true } });
 */
export function anthropicFromSpec(
  def: ModelDefinition,
  vars: Readonly<Record<string, string | undefined>> = process.env,
): ModelProvider {
  const apiKey = apiKeyLookup(def, 'anthropic', 'ANTHROPIC_API_KEY', undefined, vars);
  const options = def.options as AnthropicOptions;
  const effort = def.reasoning?.effort;
  const budget = def.reasoning?.budgetTokens ?? (effort ? THINKING_BUDGET_OF_EFFORT[effort] : undefined);
  const inner = createAnthropicProvider({
    keySource: apiKeySource(def, 'ANTHROPIC_API_KEY'),
    apiKey,
    baseURL: def.baseUrl,
    defaultModel: def.model,
    retry: def.retry,
    timeout: def.timeoutMs,
    maxOutputTokens: def.maxOutputTokens,
    promptCaching: options.promptCaching === true,
    thinking: budget === undefined ? undefined : { budgetTokens: budget },
    headers: options.headers,
  });
  const callOptions: Record<string, unknown> = {};
  if (def.parallelToolCalls !== undefined) callOptions.parallelToolCalls = def.parallelToolCalls;
  if (def.extraBody) callOptions.extraBody = def.extraBody;
  // Temperature and top_p are dropped here on purpose: the Messages request must not carry them.
  const withDefaults = ({ temperature: _t, topP: _p, ...params }: ChatParams): ChatParams => ({
    ...params,
    model: params.model || def.model || '',
    options: { ...callOptions, ...params.options },
  });
  return { ...mapRequests(inner, withDefaults), preflight: () => void apiKey() };
}
