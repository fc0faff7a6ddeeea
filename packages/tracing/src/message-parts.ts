import type { Message, ModelResponse } from '@agentctl/core';

type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: 'blob'; modality: 'image'; mime_type: string };

/** One message as the GenAI conventions' `gen_ai.input.messages` / `gen_ai.output.messages` shape it. */
export interface ConventionMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

/** The conversation sent to a model, in the conventions' shape (image bytes are left out). */
export function inputMessages(messages: readonly Message[]): ConventionMessage[] {
  return messages.map((m) => {
    const parts: Part[] = [];
    if (m.role === 'tool') {
      parts.push({ type: 'tool_call_response', id: m.toolCallId ?? '', response: m.content ?? '' });
      if (m.image) parts.push({ type: 'blob', modality: 'image', mime_type: m.image.mediaType });
    } else if (m.content) parts.push({ type: 'text', content: m.content });
    for (const call of m.toolCalls ?? [])
      parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
    return { role: m.role, parts };
  });
}

/** A model's answer in the conventions' shape. */
export function outputMessages(response: ModelResponse): ConventionMessage[] {
  const [message] = inputMessages([
    { role: 'assistant', content: response.content, toolCalls: response.toolCalls },
  ]);
  return [{ ...message, finish_reason: response.finishReason ?? 'stop' }];
}

/** The instruction in the conventions' `gen_ai.system_instructions` shape. */
export function systemInstructions(system: string): Part[] {
  return [{ type: 'text', content: system }];
}
