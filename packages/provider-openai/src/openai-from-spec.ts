import {
  AgentError,
  type ChatParams,
  type ModelProvider,
  type ModelTimingSpec,
  mapRequests,
  modelTiming,
} from '@agentctl/core';
import { createOpenAIProvider } from './openai-provider.js';

/** A `kind: model` document with `provider: openai`, after `${VAR}` resolution. */
export interface OpenAIModelSpec extends ModelTimingSpec {
  /** The model id; a request may name another. */
  model?: string;
  base_url?: string;
  api_key?: string;
  /** The variable the key comes from, named in the error when it is missing. Default `OPENAI_API_KEY`. */
  api_key_env?: string;
  temperature?: number;
  top_p?: number;
  max_output_tokens?: number;
  /** Provider options: `organization`, `headers`, `max_tokens_field`, and per-call options such as `extraBody`. */
  options?: Record<string, unknown>;
}

/**
 * Builds the OpenAI provider of a YAML model for the config registry. The key is looked up at
 * the first request, so `validate` and offline runs need none; a missing key then fails with
 * an error naming the variable. Servers on loopback (Ollama, llama.cpp) need no key at all.
 *
 * @example
 * openaiFromSpec({ model: 'llama3.2', base_url: 'http://127.0.0.1:11434/v1' });
 */
export function openaiFromSpec(spec: OpenAIModelSpec): ModelProvider {
  const envName = spec.api_key_env ?? 'OPENAI_API_KEY';
  const options = spec.options ?? {};
  const { organization, headers, max_tokens_field, ...callOptions } = options;
  const inner = createOpenAIProvider({
    apiKey: () => {
      const key = spec.api_key || process.env[envName];
      if (key) return key;
      if (spec.base_url && isLoopback(spec.base_url)) return 'no-key';
      throw new AgentError(
        `openai model ${spec.model ?? '(default)'}: no API key; set ${envName} (or api_key in the model's YAML)`,
        'PROVIDER_ERROR',
        { context: { provider: 'openai', model: spec.model, env: envName } },
      );
    },
    baseURL: spec.base_url,
    defaultModel: spec.model,
    ...modelTiming(spec),
    organization: typeof organization === 'string' ? organization : undefined,
    headers: headers && typeof headers === 'object' ? (headers as Record<string, string>) : undefined,
    maxTokensField: max_tokens_field === 'max_tokens' ? 'max_tokens' : undefined,
  });
  const withDefaults = (params: ChatParams): ChatParams => ({
    ...params,
    model: params.model || spec.model || '',
    temperature: params.temperature ?? spec.temperature,
    topP: params.topP ?? spec.top_p,
    maxOutputTokens: params.maxOutputTokens ?? spec.max_output_tokens,
    options: { ...callOptions, ...params.options },
  });
  return mapRequests(inner, withDefaults);
}

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host === '0.0.0.0' || host.startsWith('127.');
  } catch {
    return false;
  }
}
