import type { FinishReason, ModelResponse, StreamEvent, TokenUsage, ToolCall } from '@agentctl/core';
import { estimateTokens, noAnswerError, toolCallFromText, unreportedUsage } from '@agentctl/core';
import type { ThinkingBlock } from './to-anthropic-messages.js';

/** The parts of a Messages stream event we read; unknown events and fields are ignored. */
export interface RawEventLike {
  type: string;
  index?: number;
  message?: { usage?: UsageLike | null; model?: string | null } | null;
  content_block?: {
    type: string;
    id?: string;
    name?: string;
    text?: string;
    thinking?: string;
    data?: string;
    /** A tool use's input; the API sends `{}` and streams it, some compatible servers send it here whole. */
    input?: unknown;
  } | null;
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    stop_reason?: string | null;
  } | null;
  usage?: UsageLike | null;
}

interface UsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; json: string; given: string }
  | ThinkingBlock
  | { type: 'other' };

/**
 * Builds stream events and the final response from raw Messages stream events: text deltas
 * become tokens, `tool_use` blocks become tool calls (their input streamed as JSON fragments),
 * and thinking blocks are kept, signature included, for `providerData`.
 */
export class EventAssembler {
  #blocks = new Map<number, Block>();
  #stopReason: string | undefined;
  #model: string | undefined;
  #stopped = false;
  // message_start's output count is a placeholder; only message_delta's is the answer's.
  #outputCounted = false;
  #usage: Required<{ [K in keyof UsageLike]: number }> = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };

  readonly #asked: string;

  /** `model` (the one asked for) is named in the error of an answer that ended with nothing said. */
  constructor(model = '(default)') {
    this.#asked = model;
  }

  /** True once `message_stop` arrived. */
  get complete(): boolean {
    return this.#stopped;
  }

  /** Reads one event and returns the stream events it produces. */
  push(event: RawEventLike): StreamEvent[] {
    switch (event.type) {
      case 'message_start':
        this.#addUsage(event.message?.usage);
        this.#model = event.message?.model ?? undefined;
        return [];
      case 'content_block_start':
        return this.#start(event.index ?? this.#blocks.size, event.content_block);
      case 'content_block_delta':
        return this.#delta(event.index ?? 0, event.delta);
      case 'content_block_stop':
        return this.#stop(event.index ?? 0);
      case 'message_delta':
        if (event.delta?.stop_reason) this.#stopReason = event.delta.stop_reason;
        this.#addUsage(event.usage);
        if (typeof event.usage?.output_tokens === 'number') this.#outputCounted = true;
        return [];
      case 'message_stop':
        this.#stopped = true;
        return [];
      default:
        return [];
    }
  }

  /** The closing events: one `tool_call_end` per tool use in block order, then `done`. */
  finish(): StreamEvent[] {
    const events: StreamEvent[] = [];
    const toolCalls: ToolCall[] = [];
    const thinking: ThinkingBlock[] = [];
    let text = '';
    for (const [, block] of [...this.#blocks.entries()].sort((a, b) => a[0] - b[0])) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'thinking' || block.type === 'redacted_thinking') thinking.push(block);
      else if (block.type === 'tool_use') {
        const call: ToolCall = toolCallFromText(block.id, block.name, block.json || block.given);
        toolCalls.push(call);
        events.push({ type: 'tool_call_end', id: call.id, call });
      }
    }
    const response: ModelResponse = {
      content: text.length > 0 ? text : null,
      toolCalls,
      // A server that sent no usage (every count still 0) is told apart from one that counted.
      usage: this.reportedUsage ?? unreportedUsage(),
      finishReason: finishReason(this.#stopReason, toolCalls.length > 0),
    };
    if (!text && toolCalls.length === 0 && this.#stopReason && !NORMAL_STOP.has(this.#stopReason))
      throw noAnswerError('anthropic', this.#asked, this.#stopReason);
    if (this.#model) response.model = this.#model;
    if (thinking.length > 0) response.providerData = { anthropic: { thinking } };
    events.push({ type: 'done', response });
    return events;
  }

  #start(index: number, block: RawEventLike['content_block']): StreamEvent[] {
    switch (block?.type) {
      case 'text':
        this.#blocks.set(index, { type: 'text', text: block.text ?? '' });
        return block.text ? [{ type: 'token', text: block.text }] : [];
      case 'tool_use': {
        const id = block.id ?? `toolu_${index}`;
        const given = isFilledObject(block.input) ? JSON.stringify(block.input) : '';
        this.#blocks.set(index, { type: 'tool_use', id, name: block.name ?? '', json: '', given });
        return [{ type: 'tool_call_start', id, name: block.name ?? '' }];
      }
      case 'thinking':
        this.#blocks.set(index, { type: 'thinking', thinking: block.thinking ?? '', signature: '' });
        return [];
      case 'redacted_thinking':
        this.#blocks.set(index, { type: 'redacted_thinking', data: block.data ?? '' });
        return [];
      default:
        this.#blocks.set(index, { type: 'other' });
        return [];
    }
  }

  #delta(index: number, delta: RawEventLike['delta']): StreamEvent[] {
    const block = this.#blocks.get(index);
    if (!block || !delta) return [];
    if (delta.type === 'text_delta' && block.type === 'text' && delta.text) {
      block.text += delta.text;
      return [{ type: 'token', text: delta.text }];
    }
    if (delta.type === 'input_json_delta' && block.type === 'tool_use' && delta.partial_json) {
      block.json += delta.partial_json;
      return [{ type: 'tool_call_delta', id: block.id, argumentsDelta: delta.partial_json }];
    }
    if (delta.type === 'thinking_delta' && block.type === 'thinking') block.thinking += delta.thinking ?? '';
    if (delta.type === 'signature_delta' && block.type === 'thinking')
      block.signature += delta.signature ?? '';
    return [];
  }

  // A tool use whose input came whole in its start and no fragment followed: that input is the call's.
  #stop(index: number): StreamEvent[] {
    const block = this.#blocks.get(index);
    if (block?.type !== 'tool_use' || block.json || !block.given) return [];
    block.json = block.given;
    return [{ type: 'tool_call_delta', id: block.id, argumentsDelta: block.given }];
  }

  /**
   * The tokens the server reported so far (message_start counts the input before any text), or
   * undefined. Before message_delta counts the output, an answer that had begun has an output no
   * one reported: agentctl's estimate of what arrived, marked unreported.
   */
  get reportedUsage(): TokenUsage | undefined {
    const u = this.#usage;
    if (u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens === 0)
      return undefined;
    const usage: TokenUsage = {
      inputTokens: u.input_tokens,
      outputTokens: u.output_tokens,
      cacheReadTokens: u.cache_read_input_tokens,
      cacheWriteTokens: u.cache_creation_input_tokens,
    };
    const arrived = this.#outputCounted ? 0 : estimateTokens(this.#arrivedText());
    return arrived > 0
      ? { ...usage, outputTokens: Math.max(usage.outputTokens, arrived), unreported: true }
      : usage;
  }

  // Everything of the answer that streamed: text, tool inputs, thinking.
  #arrivedText(): string {
    let text = '';
    for (const block of this.#blocks.values()) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_use') text += block.name + (block.json || block.given);
      else if (block.type === 'thinking') text += block.thinking;
    }
    return text;
  }

  // message_start carries the input side; message_delta carries the running totals, which win.
  #addUsage(usage: UsageLike | null | undefined): void {
    if (!usage) return;
    for (const key of Object.keys(this.#usage) as Array<keyof UsageLike>) {
      const value = usage[key];
      if (typeof value === 'number') this.#usage[key] = value;
    }
  }
}

function isFilledObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0
  );
}

// Stop reasons after which an empty answer is what the model meant, or is already told (a limit, a refusal).
const NORMAL_STOP = new Set([
  'end_turn',
  'stop_sequence',
  'tool_use',
  'max_tokens',
  'model_context_window_exceeded',
  'refusal',
]);

function finishReason(raw: string | undefined, hasCalls: boolean): FinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return hasCalls ? 'tool_calls' : 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return hasCalls ? 'tool_calls' : 'other';
  }
}
