import type { Message } from '@agentctl/core';
import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';

/** Thinking blocks as kept in `providerData.anthropic.thinking` of an assistant message. */
export type ThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** The Messages API form of a conversation: system text apart, then alternating turns. */
export interface AnthropicConversation {
  system: string | undefined;
  messages: MessageParam[];
}

/**
 * Maps the core history to the Messages API. System messages join the system prompt; a run of
 * tool results becomes one user message of `tool_result` blocks (images inside them, `is_error`
 * kept), and a user message right after them joins that same turn; assistant turns send their
 * thinking blocks back first, unchanged, as the API requires when tools are in use.
 */
export function toAnthropicMessages(
  system: string | undefined,
  history: readonly Message[],
): AnthropicConversation {
  const systemParts = system ? [system] : [];
  const messages: MessageParam[] = [];
  for (const message of history) {
    const last = messages.at(-1);
    switch (message.role) {
      case 'system':
        if (message.content) systemParts.push(message.content);
        break;
      case 'user': {
        const text = message.content ?? '';
        if (last?.role === 'user' && Array.isArray(last.content)) last.content.push({ type: 'text', text });
        else messages.push({ role: 'user', content: text });
        break;
      }
      case 'assistant': {
        const blocks = assistantBlocks(message);
        if (blocks.length > 0) messages.push({ role: 'assistant', content: blocks });
        break;
      }
      case 'tool': {
        const block = toolResult(message);
        if (
          last?.role === 'user' &&
          Array.isArray(last.content) &&
          last.content.every((b) => b.type === 'tool_result')
        ) {
          last.content.push(block);
        } else {
          messages.push({ role: 'user', content: [block] });
        }
        break;
      }
    }
  }
  return { system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined, messages };
}

function assistantBlocks(message: Message): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [...thinkingOf(message)];
  if (message.content) blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments ?? {} });
  }
  return blocks;
}

function thinkingOf(message: Message): ThinkingBlock[] {
  const data = message.providerData?.anthropic as { thinking?: unknown } | undefined;
  return Array.isArray(data?.thinking) ? (data.thinking as ThinkingBlock[]) : [];
}

function toolResult(message: Message): ToolResultBlockParam {
  const text = message.content ?? message.image?.text ?? '';
  const block: ToolResultBlockParam = {
    type: 'tool_result',
    tool_use_id: message.toolCallId ?? '',
    content: message.image
      ? [
          ...(text ? [{ type: 'text' as const, text }] : []),
          {
            type: 'image' as const,
            source: {
              type: 'base64' as const,
              media_type: message.image.mediaType,
              data: message.image.data,
            },
          },
        ]
      : text,
  };
  if (message.isError) block.is_error = true;
  return block;
}
