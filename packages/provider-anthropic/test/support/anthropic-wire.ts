import type { FakeReply, SseEvent } from '../../../../test/support/fake-server.js';

/** Usage as the Messages API reports it. */
export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** One content block the fake server streams. */
export type WireBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const ev = (data: { type: string } & Record<string, unknown>): SseEvent => ({ event: data.type, data });

/**
 * A Messages stream: message_start, each block as start / deltas of `size` characters / stop,
 * message_delta with the stop reason and usage, message_stop. Extra fields the API added over
 * time (`stop_details`, `caller`) are included so parsing stays tolerant.
 */
export function anthropicStream(
  blocks: WireBlock[],
  options: { size?: number; usage?: WireUsage; stopReason?: string } = {},
): SseEvent[] {
  const size = options.size ?? 4;
  const usage = options.usage ?? { input_tokens: 12, output_tokens: 6 };
  const events: SseEvent[] = [
    ev({
      type: 'message_start',
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: 'claude-fake',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: 1,
          cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
          service_tier: 'standard',
        },
      },
    }),
    ev({ type: 'ping' }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '', citations: null },
        }),
      );
      for (const text of pieces(block.text, size)) {
        events.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
      }
    } else if (block.type === 'tool_use') {
      events.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: {
            type: 'tool_use',
            id: block.id,
            name: block.name,
            input: {},
            caller: { type: 'direct' },
          },
        }),
      );
      for (const partial_json of pieces(JSON.stringify(block.input), size)) {
        events.push(
          ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }),
        );
      }
    } else {
      events.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      for (const thinking of pieces(block.thinking, size)) {
        events.push(ev({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } }));
      }
      events.push(
        ev({
          type: 'content_block_delta',
          index,
          delta: { type: 'signature_delta', signature: block.signature },
        }),
      );
    }
    events.push(ev({ type: 'content_block_stop', index }));
  });
  const hasTools = blocks.some((b) => b.type === 'tool_use');
  events.push(
    ev({
      type: 'message_delta',
      delta: {
        stop_reason: options.stopReason ?? (hasTools ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        stop_details: null,
      },
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      },
    }),
  );
  events.push(ev({ type: 'message_stop' }));
  return events;
}

/** A streamed text answer. */
export function anthropicText(text: string, options: { size?: number; usage?: WireUsage } = {}): SseEvent[] {
  return anthropicStream([{ type: 'text', text }], options);
}

/** An error reply in the Messages API's shape. */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): FakeReply {
  return { status, headers, json: { type: 'error', error: { type, message }, request_id: 'req_fake' } };
}
