import type { ChatParams } from '@agentctl/core';
import type { Content, GenerateContentConfig, ThinkingConfig, ThinkingLevel } from '@google/genai';
import { toGeminiContents } from './to-gemini-contents.js';

/** Thinking as the provider is configured: a token budget, a level, or both unset. */
export interface GoogleThinking {
  budgetTokens?: number;
  level?: 'minimal' | 'low' | 'medium' | 'high';
  includeThoughts?: boolean;
}

/** Provider settings that shape every request. */
export interface GoogleRequestSettings {
  thinking?: GoogleThinking;
  /** A context cache on the API (`cachedContents/...`) used as the prompt prefix. */
  cachedContent?: string;
}

/** What `models.generateContentStream` is given, the signal apart. */
export interface GeminiRequest {
  model: string;
  contents: Content[];
  config: GenerateContentConfig;
}

/**
 * The `generateContent` request for a core request. Tools are declared with
 * `parametersJsonSchema`, which takes JSON Schema as is (the older `parameters` field takes an
 * OpenAPI subset); structured output likewise uses `responseJsonSchema`. Per-call
 * `options.thinking` (`{ budgetTokens, level }`, or `false` for off) overrides the provider's
 * thinking; `options.parallelToolCalls` has no Gemini field and is ignored; `options.extraBody`
 * is merged into the body by the SDK.
 */
export function toGeminiRequest(
  params: ChatParams & { model: string },
  settings: GoogleRequestSettings,
): GeminiRequest {
  const { systemInstruction, contents } = toGeminiContents(params.system, params.messages);
  const config: GenerateContentConfig = {};
  if (systemInstruction) config.systemInstruction = systemInstruction;
  if (params.temperature !== undefined) config.temperature = params.temperature;
  if (params.topP !== undefined) config.topP = params.topP;
  if (params.maxOutputTokens !== undefined) config.maxOutputTokens = params.maxOutputTokens;
  if (params.tools?.length) {
    config.tools = [
      {
        functionDeclarations: params.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: { type: 'object', ...tool.parameters },
        })),
      },
    ];
  }
  if (params.responseFormat) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = params.responseFormat.schema;
  }
  const thinking = thinkingConfig(readThinking(params.options?.thinking) ?? settings.thinking);
  if (thinking) config.thinkingConfig = thinking;
  if (settings.cachedContent) config.cachedContent = settings.cachedContent;
  const extra = params.options?.extraBody;
  if (extra && typeof extra === 'object')
    config.httpOptions = { extraBody: extra as Record<string, unknown> };
  return { model: params.model, contents, config };
}

function thinkingConfig(thinking: GoogleThinking | undefined): ThinkingConfig | undefined {
  if (!thinking) return undefined;
  const config: ThinkingConfig = {};
  if (thinking.budgetTokens !== undefined) config.thinkingBudget = thinking.budgetTokens;
  else if (thinking.level) config.thinkingLevel = thinking.level.toUpperCase() as ThinkingLevel;
  if (thinking.includeThoughts !== undefined) config.includeThoughts = thinking.includeThoughts;
  return Object.keys(config).length > 0 ? config : undefined;
}

function readThinking(value: unknown): GoogleThinking | undefined {
  if (value === false) return { budgetTokens: 0 };
  if (!value || typeof value !== 'object') return undefined;
  const v = value as { budgetTokens?: unknown; level?: unknown };
  const out: GoogleThinking = {};
  if (typeof v.budgetTokens === 'number') out.budgetTokens = v.budgetTokens;
  if (typeof v.level === 'string') out.level = v.level as GoogleThinking['level'];
  return Object.keys(out).length > 0 ? out : undefined;
}
