import type { Message } from '@agentctl/core';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

/**
 * Maps the core history to Chat Completions messages. Chat Completions accepts image parts only
 * in user messages, so images that tools returned follow the run of tool results as one user
 * message, each image introduced by a line naming the tool call it came from.
 */
export function toOpenAIMessages(
  system: string | undefined,
  messages: readonly Message[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  let images: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content ?? '' });
        break;
      case 'user':
        out.push({
          role: 'user',
          content: message.content ?? '',
          ...(message.name ? { name: message.name } : {}),
        });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
                })),
              }
            : {}),
        });
        break;
      case 'tool': {
        const image = message.image;
        const text = message.content ?? image?.text ?? '';
        out.push({ role: 'tool', tool_call_id: message.toolCallId ?? '', content: text });
        if (image) {
          images.push({
            type: 'text',
            text: `Image returned by tool ${message.name ?? ''} (call ${message.toolCallId ?? '?'}):`,
          });
          images.push({
            type: 'image_url',
            image_url: { url: `data:${image.mediaType};base64,${image.data}` },
          });
        }
        break;
      }
    }
  }
  flushImages();
  return out;
}
