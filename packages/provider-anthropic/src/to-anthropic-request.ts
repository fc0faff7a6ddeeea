import { type ChatParams, functionSchema } from '@agentctl/core';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { toAnthropicMessages } from './to-anthropic-messages.js';

/** Provider settings that shape every request. */
export interface AnthropicRequestSettings {
  /** `max_tokens` when the request names none; the API requires one. */
  maxOutputTokens: number;
  promptCaching: boolean;
  /** Extended thinking budget in tokens; off when undefined. */
  thinkingBudget?: number;
}

/**
 * The streaming Messages request for a core request. `temperature` and `top_p` are never sent:
 * the SDK's request types have no such fields. Per-call `options.promptCaching` and
 * `options.thinking: { budgetTokens }` override the provider's settings. With thinking on, the
 * budget is added to `max_tokens`, so the visible answer keeps its own limit.
 * `options.parallelToolCalls: false` becomes `tool_choice.disable_parallel_tool_use`;
 * `options.extraBody` is merged in last, as is.
 */
export function toAnthropicRequest(
  params: ChatParams & { model: string },
  settings: AnthropicRequestSettings,
): MessageCreateParamsStreaming {
  const caching = readBoolean(params.options?.promptCaching) ?? settings.promptCaching;
  const budget = readBudget(params.options?.thinking) ?? settings.thinkingBudget;
  const { system, messages } = toAnthropicMessages(params.system, params.messages);
  const maxTokens = params.maxOutputTokens ?? settings.maxOutputTokens;
  const body: MessageCreateParamsStreaming = {
    model: params.model,
    max_tokens: budget ? maxTokens + budget : maxTokens,
    messages,
    stream: true,
  };
  if (system) {
    body.system = caching ? [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }] : system;
  }
  if (params.tools?.length) {
    body.tools = params.tools.map((tool, i, all) => ({
      name: tool.name,
      description: tool.description,
      // The API refuses anyOf/oneOf/allOf at the root of input_schema, for the whole request.
      input_schema: { ...functionSchema(tool.parameters), type: 'object' as const },
      // One breakpoint after the last tool caches every tool definition together.
      ...(caching && i === all.length - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}),
    }));
  }
  if (budget) body.thinking = { type: 'enabled', budget_tokens: budget };
  if (params.options?.parallelToolCalls === false && body.tools)
    body.tool_choice = { type: 'auto', disable_parallel_tool_use: true };
  if (params.responseFormat) {
    body.output_config = { format: { type: 'json_schema', schema: params.responseFormat.schema } };
  }
  const extra = params.options?.extraBody;
  if (extra && typeof extra === 'object') Object.assign(body, extra);
  return body;
}

function readBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

function readBudget(value: unknown): number | undefined {
  if (value === false) return 0;
  if (!value || typeof value !== 'object') return undefined;
  const budget =
    (value as { budgetTokens?: unknown; budget_tokens?: unknown }).budgetTokens ??
    (value as { budget_tokens?: unknown }).budget_tokens;
  return typeof budget === 'number' && budget > 0 ? budget : undefined;
}
