import {
  apiKeyLookup,
  apiKeySource,
  type ModelDefinition,
  type ModelProvider,
  withDefinitionDefaults,
} from '@agentctl/core';

import { createGoogleProvider } from './google-provider.js';
import type { GoogleThinking } from './to-gemini-request.js';

/** The `options:` of a Google model once normalised (see `GOOGLE_OPTIONS_SCHEMA`). */
interface GoogleOptions {
  thinkingBudget?: number;
  thinkingLevel?: GoogleThinking['level'];
  includeThoughts?: boolean;
  cachedContent?: string;
  apiVersion?: string;
  headers?: Record<string, string>;
}

/**
 * The thinking budget of a reasoning effort on Gemini 2.x, which takes a budget and refuses a level.
 * Gemini 3 takes the effort as its `thinkingLevel` instead.
 */
export const THINKING_BUDGET_OF_EFFORT: Readonly<Record<string, number>> = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24_576,
};

/**
 * Builds the Google (Gemini API) provider of a model definition for the config registry. The key
 * is looked up at the first request (`api_key`, else `GEMINI_API_KEY`), so `validate` and offline
 * runs need none; `vars` is where variables are read (the project's environment over its .env).
 * Thinking: `options.thinking_budget`, else `reasoning.budget_tokens`, is sent as
 * `thinkingBudget`; `reasoning.effort` becomes `thinkingLevel` on Gemini 3 and later, and a budget
 * from {@link THINKING_BUDGET_OF_EFFORT} on Gemini 2.x; `options.thinking_level` overrides it.
 *
 * @example
 * googleFromSpec({ name: 'flash', provider: 'google', model: 'gemini-2.5-flash', reasoning: { effort: 'low' }, options: {} });
 */
export function googleFromSpec(
  def: ModelDefinition,
  vars: Readonly<Record<string, string | undefined>> = process.env,
): ModelProvider {
  const options = def.options as GoogleOptions;
  const apiKey = apiKeyLookup(def, 'google', 'GEMINI_API_KEY', undefined, vars);
  const inner = createGoogleProvider({
    keySource: apiKeySource(def, 'GEMINI_API_KEY'),
    apiKey,
    baseURL: def.baseUrl,
    apiVersion: options.apiVersion,
    defaultModel: def.model,
    retry: def.retry,
    timeout: def.timeoutMs,
    thinking: thinkingOf(def, options),
    cachedContent: options.cachedContent,
    headers: options.headers,
  });
  const callOptions: Record<string, unknown> = {};
  if (def.extraBody) callOptions.extraBody = def.extraBody;
  return { ...withDefinitionDefaults(inner, def, callOptions), preflight: () => void apiKey() };
}

function thinkingOf(def: ModelDefinition, options: GoogleOptions): GoogleThinking | undefined {
  const effort = def.reasoning?.effort;
  const budgetFirst = /^gemini-[12]\./.test(def.model ?? '');
  const thinking: GoogleThinking = {};
  const budget =
    options.thinkingBudget ??
    def.reasoning?.budgetTokens ??
    (effort && budgetFirst && !options.thinkingLevel ? THINKING_BUDGET_OF_EFFORT[effort] : undefined);
  if (budget !== undefined) thinking.budgetTokens = budget;
  else {
    const level = options.thinkingLevel ?? (effort && !budgetFirst ? effort : undefined);
    if (level) thinking.level = level;
  }
  if (options.includeThoughts !== undefined) thinking.includeThoughts = options.includeThoughts;
  return Object.keys(thinking).length > 0 ? thinking : undefined;
}
