import type { FakeReply, SseEvent } from '../../../../test/support/fake-server.js';

/** A tool call the fake OpenAI server streams. */
export interface WireToolCall {
  id?: string;
  name: string;
  /** The arguments, or the raw text to stream as them (a malformed call). */
  arguments: Record<string, unknown> | string;
}

/** Usage of the final chunk, in the wire's own names. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-fake',
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  };
}

function usageChunk(usage: WireUsage) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-fake',
    choices: [],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** Splits text into pieces of at most `size` characters. */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

/** A streamed text answer, in pieces of `size` characters, then its finish (`stop`), usage and `[DONE]`. */
export function openaiText(
  text: string,
  options: { size?: number; usage?: WireUsage | null; finish?: string } = {},
): SseEvent[] {
  const events: SseEvent[] = [{ data: chunk({ role: 'assistant', content: '' }) }];
  for (const piece of pieces(text, options.size ?? 4)) events.push({ data: chunk({ content: piece }) });
  events.push({ data: chunk({}, options.finish ?? 'stop') });
  if (options.usage !== null)
    events.push({ data: usageChunk(options.usage ?? { prompt_tokens: 10, completion_tokens: 5 }) });
  events.push({ data: '[DONE]' });
  return events;
}

/**
 * Parallel tool calls whose arguments arrive in fragments of `size` characters, taken from the
 * calls in turn (index 0, 1, 0, 1, ...) the way interleaved streams look.
 */
export function openaiToolCalls(
  calls: WireToolCall[],
  options: { size?: number; usage?: WireUsage | null; finish?: string; text?: string } = {},
): SseEvent[] {
  const events: SseEvent[] = [{ data: chunk({ role: 'assistant', content: null }) }];
  if (options.text)
    for (const piece of pieces(options.text, 5)) events.push({ data: chunk({ content: piece }) });
  const fragments = calls.map((c) =>
    pieces(typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments), options.size ?? 3),
  );
  calls.forEach((call, index) => {
    const head: Record<string, unknown> = {
      index,
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    if (call.id !== undefined) head.id = call.id;
    events.push({ data: chunk({ tool_calls: [head] }) });
  });
  const longest = Math.max(...fragments.map((f) => f.length));
  for (let step = 0; step < longest; step++) {
    fragments.forEach((list, index) => {
      if (step < list.length) {
        events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: list[step] } }] }) });
      }
    });
  }
  events.push({ data: chunk({}, options.finish ?? 'tool_calls') });
  if (options.usage !== null)
    events.push({ data: usageChunk(options.usage ?? { prompt_tokens: 20, completion_tokens: 8 }) });
  events.push({ data: '[DONE]' });
  return events;
}

/** An error reply in OpenAI's shape. */
export function openaiError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): FakeReply {
  return {
    status,
    headers,
    json: { error: { message, type: 'invalid_request_error', param: null, code: null } },
  };
}
