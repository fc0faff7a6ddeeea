import { type ChatParams, functionSchema } from '@agentctl/core';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { toOpenAIMessages } from './to-openai-messages.js';

/**
 * The streaming Chat Completions request for a core request. Usage is asked for explicitly:
 * without `stream_options.include_usage` a stream reports none. Per-call options:
 * `reasoningEffort`, `parallelToolCalls`, `strictOutput`, and `extraBody`, merged in last as is.
 */
export function toOpenAIRequest(
  params: ChatParams & { model: string },
  maxTokensField: 'max_completion_tokens' | 'max_tokens' = 'max_completion_tokens',
): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: params.model,
    messages: toOpenAIMessages(params.system, params.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (params.tools?.length) {
    // The API refuses a function schema without `type: object` ("got 'type: None'"), or with
    // anyOf/oneOf/allOf at its root; tools may send either (MCP servers do).
    body.tools = params.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: functionSchema(tool.parameters),
      },
    }));
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.topP !== undefined) body.top_p = params.topP;
  if (params.maxOutputTokens !== undefined) body[maxTokensField] = params.maxOutputTokens;
  if (params.responseFormat) {
    const strict = params.options?.strictOutput === true;
    body.response_format = {
      type: 'json_schema',
      json_schema: {
        name: params.responseFormat.name ?? 'output',
        schema: params.responseFormat.schema,
        ...(strict ? { strict: true } : {}),
      },
    };
  }
  const effort = params.options?.reasoningEffort;
  if (typeof effort === 'string') body.reasoning_effort = effort as typeof body.reasoning_effort;
  // The API refuses parallel_tool_calls on a request without tools.
  const parallel = params.options?.parallelToolCalls;
  if (typeof parallel === 'boolean' && body.tools) body.parallel_tool_calls = parallel;
  const extra = params.options?.extraBody;
  if (extra && typeof extra === 'object') Object.assign(body, extra);
  return body;
}
