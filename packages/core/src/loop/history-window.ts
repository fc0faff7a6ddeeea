import type { Message } from '../messages.js';

/** How much of the conversation is sent to the model: the last N messages and/or about N tokens. */
export interface HistoryWindow {
  messages?: number;
  tokens?: number;
}

/**
 * The part of the history sent to the model. The stored log stays complete; only the request is
 * bounded. The window never holds a tool result without its call (the APIs refuse that request),
 * and when it starts after the user's message, that message is kept in front so the model knows
 * the task.
 */
export function windowOf(
  messages: readonly Message[],
  window: HistoryWindow | undefined,
): readonly Message[] {
  if (!window || messages.length === 0) return messages;
  let start = 0;
  if (window.messages !== undefined && messages.length > window.messages)
    start = messages.length - window.messages;
  if (window.tokens !== undefined) {
    let budget = window.tokens;
    let i = messages.length - 1;
    for (; i > start; i--) {
      budget -= sizeOf(messages[i]);
      if (budget < 0) break;
    }
    start = Math.min(messages.length - 1, Math.max(start, i === start ? start : i + 1));
  }
  if (start === 0) return messages;
  start = pairedStart(messages, start);
  if (start === 0) return messages;
  const out = messages.slice(start);
  if (out[0].role !== 'user') {
    for (let i = start - 1; i >= 0; i--) {
      if (messages[i].role === 'user') {
        out.unshift(messages[i]);
        break;
      }
    }
  }
  return out;
}

// A window starting on tool results starts after them, or, when they end the history (the results
// the model is about to read), at the assistant message that made the calls.
function pairedStart(messages: readonly Message[], start: number): number {
  let after = start;
  while (after < messages.length && messages[after].role === 'tool') after++;
  if (after < messages.length) return after;
  while (start > 0 && messages[start].role === 'tool') start--;
  return start;
}

// About four characters a token, as the offline models estimate.
function sizeOf(message: Message): number {
  let chars = message.content?.length ?? 0;
  for (const call of message.toolCalls ?? [])
    chars += call.name.length + JSON.stringify(call.arguments).length;
  return Math.ceil(chars / 4) + 4;
}
