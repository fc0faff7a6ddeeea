/**
 * The model definition a provider package is made from: what configuration (YAML through
 * `@agentctl/config`, or code) says about one model, camelCase, durations in ms. No YAML spelling
 * crosses into a provider.
 */
import { AgentError } from './errors.js';
import { type ModelProvider, mapRequests } from './model.js';
import type { ScriptTurn } from './offline/script-model.js';
import type { RetryPolicy } from './timing/backoff.js';
import type { ModelPricing } from './usage.js';

/** How hard a reasoning model thinks, mapped per provider (OpenAI `reasoning_effort`, Anthropic `thinking`). */
export interface ReasoningDefinition {
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Tokens a model may spend thinking (Anthropic `thinking.budget_tokens`). */
  budgetTokens?: number;
}

/** The models a model falls back to when it fails with a retryable error after its own retries. */
export interface FallbackDefinition {
  /** Names of other models, tried in order. */
  models: string[];
  /** How long a model that failed is passed over, ms. */
  cooldownMs?: number;
}

/** A `kind: model` document (or an inline `provider/model`), normalised. */
export interface ModelDefinition {
  name: string;
  provider: string;
  /** The model id on the provider; for `offline`, the mode (echo, auto, script, replay). */
  model?: string;
  description?: string;
  baseUrl?: string;
  apiKey?: string;
  /** The variable `api_key: ${VAR}` reads, named in the error when the key is missing. */
  apiKeyEnv?: string;
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  /** Idle timeout of a request, ms. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  pricing?: ModelPricing;
  reasoning?: ReasoningDefinition;
  /** Whether the model may call several tools in one turn; unset leaves the provider's default. */
  parallelToolCalls?: boolean;
  /** The provider's own options (typed by its registry descriptor), keys camelCased. */
  options: Record<string, unknown>;
  /** Sent in the request body as is: the one escape hatch for what the options schema does not know. */
  extraBody?: Record<string, unknown>;
  /** offline/script: the turns, or the path of a YAML list of turns (relative to the model's file). */
  script?: string | ScriptTurn[];
  /** A cassette path as written (relative to the model's file). */
  cassette?: string;
  /** The chain tried when this model fails (429, 5xx, timeouts) after its own retries. */
  fallback?: FallbackDefinition;
}

/**
 * The API key lookup of a network model: `api_key` from the definition, else the variable it
 * names (`apiKeyEnv`), else `defaultEnv`, else what `orElse` gives (a keyless local server); asked
 * at the first request, so `validate` and offline runs need no key. A missing key fails with an
 * error naming the variable to set. Variables are read from `vars` (a project's environment over
 * its .env file; default process.env).
 *
 * @example
 * createGoogleProvider({ apiKey: apiKeyLookup(def, 'google', 'GEMINI_API_KEY') });
 */
export function apiKeyLookup(
  def: ModelDefinition,
  provider: string,
  defaultEnv: string,
  orElse?: () => string | undefined,
  vars: Readonly<Record<string, string | undefined>> = process.env,
): () => string {
  const env = def.apiKeyEnv ?? defaultEnv;
  return () => {
    const key = def.apiKey || vars[env] || orElse?.();
    if (key) return key;
    throw new AgentError(
      `${provider} model ${def.model ?? '(default)'}: no API key; set ${env} (or api_key in the model's YAML)`,
      'PROVIDER_ERROR',
      { context: { provider, model: def.model, env } },
    );
  };
}

/**
 * Where the key {@link apiKeyLookup} finds comes from, as a refused key's error names it: the
 * variable `api_key: ${VAR}` reads, `api_key` written as is, or the provider's variable.
 *
 * @example
 * createOpenAIProvider({ apiKey: apiKeyLookup(def, 'openai', 'OPENAI_API_KEY'), keySource: apiKeySource(def, 'OPENAI_API_KEY') });
 */
export function apiKeySource(def: ModelDefinition, defaultEnv: string): string {
  const written = `api_key of model ${def.name}`;
  if (def.apiKeyEnv) return `${def.apiKeyEnv}, read by ${written}`;
  return def.apiKey ? written : defaultEnv;
}

/**
 * `inner` with each request's unset fields filled from its model definition: the model id,
 * temperature, top_p and max_output_tokens, and per-call `options` under the request's own.
 *
 * @example
 * return withDefinitionDefaults(createOpenAIProvider({ ... }), def, { reasoningEffort: 'low' });
 */
export function withDefinitionDefaults(
  inner: ModelProvider,
  def: ModelDefinition,
  callOptions: Record<string, unknown> = {},
): ModelProvider {
  return mapRequests(inner, (params) => ({
    ...params,
    model: params.model || def.model || '',
    temperature: params.temperature ?? def.temperature,
    topP: params.topP ?? def.topP,
    maxOutputTokens: params.maxOutputTokens ?? def.maxOutputTokens,
    options: { ...callOptions, ...params.options },
  }));
}
