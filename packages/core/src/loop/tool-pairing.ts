import type { Message } from '../messages.js';

/** The text a model sees for a tool call that never got a result because the run stopped. */
export const CANCELLED_RESULT = '[cancelled] The tool call did not complete because the run was stopped.';

/**
 * Makes a history structurally valid for the next request: every assistant tool call gets a
 * result right after its assistant message. A run cancelled while tools ran leaves calls without
 * results, which both OpenAI and Anthropic reject; each one gets a synthetic `cancelled` result.
 * Returns the repaired history (the same array when nothing was missing) and how many were added.
 */
export function ensureToolResultsComplete(messages: readonly Message[]): {
  messages: Message[];
  added: number;
} {
  let out: Message[] | undefined;
  let added = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    out?.push(message);
    if (message.role !== 'assistant' || !message.toolCalls?.length) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j].role === 'tool'; j++) {
      const id = messages[j].toolCallId;
      if (id !== undefined) answered.add(id);
    }
    const missing = message.toolCalls.filter((call) => !answered.has(call.id));
    if (missing.length === 0) continue;
    out ??= messages.slice(0, i + 1);
    // Results already present stay right after the assistant message, before the synthetic ones.
    for (let k = i + 1; k < j; k++) out.push(messages[k]);
    for (const call of missing) {
      out.push({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: CANCELLED_RESULT,
        isError: true,
      });
      added++;
    }
    i = j - 1;
  }
  return { messages: out ?? (messages as Message[]), added };
}

/**
 * The history without tool results that answer no call of the assistant message right before
 * them. Only a session edited or damaged outside agentctl has them (a record deleted by hand took
 * the call with it); the APIs refuse such a request, so it is left out of the request, not the log.
 * Returns the same array when there were none.
 */
export function dropUnansweringResults(messages: readonly Message[]): Message[] {
  let out: Message[] | undefined;
  let open = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === 'tool') {
      if (message.toolCallId !== undefined && open.delete(message.toolCallId)) {
        out?.push(message);
        continue;
      }
      out ??= messages.slice(0, i);
      continue;
    }
    open = new Set(message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : []);
    out?.push(message);
  }
  return out ?? (messages as Message[]);
}

/** Names the first tool result without a matching call, or a call without a result, if any. */
export function findPairingProblem(messages: readonly Message[], from = 0): string | undefined {
  let open = new Set<string>();
  for (let i = from; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === 'tool') {
      if (message.toolCallId === undefined || !open.delete(message.toolCallId)) {
        return `tool result ${message.toolCallId ?? '(without id)'} at message ${i} answers no open tool call`;
      }
      continue;
    }
    if (open.size > 0) return `tool call ${[...open][0]} has no result before message ${i}`;
    open = new Set(message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : []);
  }
  return open.size > 0 ? `tool call ${[...open][0]} has no result` : undefined;
}
