import type { ChatParams, ModelResponse, StreamEvent } from '../model.js';
import { sleep } from '../timing/sleep.js';

/** Splits text into words with their trailing spaces, the way the offline models stream. */
export function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Estimated input tokens of a request, for models that cannot count them. */
export function estimateInput(params: ChatParams): number {
  let chars = params.system?.length ?? 0;
  for (const message of params.messages) {
    chars += message.content?.length ?? 0;
    for (const call of message.toolCalls ?? [])
      chars += call.name.length + JSON.stringify(call.arguments).length;
  }
  return Math.ceil(chars / 4);
}

/** Streams a finished response: its text word by word, then its tool calls, then `done`. */
export async function* streamResponse(
  response: ModelResponse,
  options: { delayMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<StreamEvent> {
  const delay = options.delayMs ?? 0;
  for (const word of words(response.content ?? '')) {
    // An abort ends the wait early; the check below turns it into the stream's error event.
    if (delay > 0) await sleep(delay, options.signal).catch(() => undefined);
    if (options.signal?.aborted) return yield { type: 'error', error: abortReason(options.signal) };
    yield { type: 'token', text: word };
  }
  for (const call of response.toolCalls) {
    yield { type: 'tool_call_start', id: call.id, name: call.name };
    yield { type: 'tool_call_delta', id: call.id, argumentsDelta: JSON.stringify(call.arguments) };
    yield { type: 'tool_call_end', id: call.id, call };
  }
  yield { type: 'done', response };
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
