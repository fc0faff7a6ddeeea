import {
  apiKeyLookup,
  apiKeySource,
  type ModelDefinition,
  type ModelProvider,
  withDefinitionDefaults,
} from '@agentctl/core';
import { createOpenAIProvider } from './openai-provider.js';

/** The `options:` of an OpenAI model once normalised (see `OPENAI_OPTIONS_SCHEMA`). */
interface OpenAIOptions {
  organization?: string;
  headers?: Record<string, string>;
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  strictOutput?: boolean;
}

/**
 * Builds the OpenAI provider of a model definition for the config registry. The key is looked up
 * at the first request, so `validate` and offline runs need none; a missing key then fails with
 * an error naming the variable (read from `vars`: the project's environment over its .env). Servers on loopback (Ollama, llama.cpp) need no key at all.
 * `reasoning.effort` is sent as `reasoning_effort`, `parallelToolCalls` as `parallel_tool_calls`
 * (only with tools: the API refuses it without), `extraBody` as is.
 *
 * @example
 * openaiFromSpec({ name: 'local', provider: 'openai', model: 'llama3.2', baseUrl: 'http://127.0.0.1:11434/v1', options: {} });
 */
export function openaiFromSpec(
  def: ModelDefinition,
  vars: Readonly<Record<string, string | undefined>> = process.env,
): ModelProvider {
  const options = def.options as OpenAIOptions;
  // Servers on loopback (Ollama, llama.cpp) need no key at all.
  const apiKey = apiKeyLookup(
    def,
    'openai',
    'OPENAI_API_KEY',
    () => (def.baseUrl && isLoopback(def.baseUrl) ? 'no-key' : undefined),
    vars,
  );
  const inner = createOpenAIProvider({
    keySource: apiKeySource(def, 'OPENAI_API_KEY'),
    apiKey,
    baseURL: def.baseUrl,
    defaultModel: def.model,
    retry: def.retry,
    timeout: def.timeoutMs,
    organization: options.organization,
    headers: options.headers,
    maxTokensField: options.maxTokensField === 'max_tokens' ? 'max_tokens' : undefined,
  });
  const callOptions: Record<string, unknown> = {};
  if (options.strictOutput !== undefined) callOptions.strictOutput = options.strictOutput;
  if (def.reasoning?.effort) callOptions.reasoningEffort = def.reasoning.effort;
  if (def.parallelToolCalls !== undefined) callOptions.parallelToolCalls = def.parallelToolCalls;
  if (def.extraBody) callOptions.extraBody = def.extraBody;
  return { ...withDefinitionDefaults(inner, def, callOptions), preflight: () => void apiKey() };
}

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host === '0.0.0.0' || host.startsWith('127.');
  } catch {
    return false;
  }
}
