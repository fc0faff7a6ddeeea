import {
  estimateTokens,
  type FinishReason,
  type ModelResponse,
  noAnswerError,
  type StreamEvent,
  type TokenUsage,
  type ToolCall,
  toolCallFromText,
} from '@agentctl/core';

/** The parts of a Chat Completions chunk we read; everything else is ignored. */
export interface ChunkLike {
  /** `error` on the error event some servers (vLLM) send inside a stream, flat, with `message` and `code`. */
  object?: string | null;
  message?: unknown;
  code?: unknown;
  /** The model that answered (it may name a dated version of the one requested). */
  model?: string | null;
  choices?: Array<{
    index?: number;
    delta?: {
      content?: string | null;
      /** The model's explanation when it declines to answer, streamed instead of `content`. */
      refusal?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string | null;
        function?: { name?: string | null; arguments?: string | null } | null;
      }> | null;
    } | null;
    finish_reason?: string | null;
  }> | null;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
  } | null;
}

interface PartialCall {
  index: number;
  id: string;
  /** The id came from the server (not generated), so another id at the same index is another call. */
  ownId: boolean;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Builds stream events and the final response from raw Chat Completions chunks. Parallel tool
 * calls are assembled by `index`, so fragments of several calls may arrive interleaved; servers
 * that leave out the index or the id (some OpenAI-compatible ones do) get one from the position
 * in the chunk and a generated id, and a new id at an index already taken starts a new call
 * (Ollama numbers every call of a parallel batch 0). A `refusal` is streamed as the answer's text, and the answer
 * is then marked as stopped by the provider (`content_filter`), as Anthropic's `refusal` is.
 */
export class ChunkAssembler {
  #text = '';
  /** Every call in the order it started. */
  #calls: PartialCall[] = [];
  /** The call each index currently continues. */
  #atIndex = new Map<number, PartialCall>();
  #finish: string | undefined;
  #usage: ChunkLike['usage'];
  #model: string | undefined;
  #seenChoice = false;
  /** Usage came in a chunk of its own, with no choice: the last chunk of an answer that has no finish reason. */
  #usageChunk = false;
  #refused = false;
  readonly #idPrefix = `call_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  readonly #asked: string;

  /** `model` (the one asked for) is named in the error of an answer that ended with nothing said. */
  constructor(model = '(default)') {
    this.#asked = model;
  }

  /**
   * True once the server said why it stopped, or sent the usage chunk that closes an answer. Usage
   * beside a choice does not count: servers asked for running totals (vLLM's
   * `continuous_usage_stats`) put it on every chunk, and a stream cut after any of them would
   * pass for a whole answer.
   */
  get complete(): boolean {
    return this.#finish !== undefined || (this.#usageChunk && this.#seenChoice);
  }

  /** Reads one chunk and returns the events it produces. */
  push(chunk: ChunkLike): StreamEvent[] {
    if (chunk.object === 'error') throw streamError(chunk);
    if (chunk.usage) this.#usage = chunk.usage;
    if (chunk.model) this.#model = chunk.model;
    // Compatible servers send odd shapes (`choices: [null]`); what is no object is skipped.
    const choice = (Array.isArray(chunk.choices) ? chunk.choices : []).find(
      (c) => typeof c === 'object' && c !== null && (c.index ?? 0) === 0,
    );
    if (!choice) {
      if (chunk.usage) this.#usageChunk = true;
      return [];
    }
    this.#usageChunk = false;
    this.#seenChoice = true;
    const events: StreamEvent[] = [];
    const content = choice.delta?.content;
    if (typeof content === 'string' && content.length > 0) {
      this.#text += content;
      events.push({ type: 'token', text: content });
    }
    // A refusal is the whole answer: dropping it would leave an empty answer that looks complete.
    const refusal = choice.delta?.refusal;
    if (typeof refusal === 'string' && refusal.length > 0) {
      this.#refused = true;
      this.#text += refusal;
      events.push({ type: 'token', text: refusal });
    }
    const parts = Array.isArray(choice.delta?.tool_calls) ? choice.delta.tool_calls : [];
    for (const [position, part] of parts.entries()) {
      if (typeof part !== 'object' || part === null) continue;
      const call = this.#callFor(part.index, part.id ?? undefined, position);
      const name = part.function?.name;
      // Some servers repeat the name on every fragment; the first one counts.
      if (name && !call.name) call.name = name;
      // A few servers send the arguments as an object rather than its JSON text.
      const raw: unknown = part.function?.arguments;
      const fragment =
        typeof raw === 'string' ? raw : raw && typeof raw === 'object' ? JSON.stringify(raw) : '';
      if (!call.started && call.name) {
        call.started = true;
        events.push({ type: 'tool_call_start', id: call.id, name: call.name });
        if (call.args) events.push({ type: 'tool_call_delta', id: call.id, argumentsDelta: call.args });
      }
      if (fragment) {
        call.args += fragment;
        if (call.started) events.push({ type: 'tool_call_delta', id: call.id, argumentsDelta: fragment });
      }
    }
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    return events;
  }

  /** The closing events: one `tool_call_end` per call in index order, then `done`. */
  finish(): StreamEvent[] {
    const said = this.#text.length > 0 || this.#calls.some((c) => c.name);
    if (!said && this.#finish !== undefined && !NORMAL_FINISH.has(this.#finish))
      throw noAnswerError('openai', this.#asked, this.#finish);
    const events: StreamEvent[] = [];
    const toolCalls: ToolCall[] = [];
    // A stable sort: calls sharing an index keep the order they came in.
    for (const call of [...this.#calls].sort((a, b) => a.index - b.index)) {
      if (!call.name) continue;
      const done: ToolCall = toolCallFromText(call.id, call.name, call.args);
      toolCalls.push(done);
      if (!call.started) events.push({ type: 'tool_call_start', id: call.id, name: call.name });
      events.push({ type: 'tool_call_end', id: call.id, call: done });
    }
    const response: ModelResponse = {
      content: this.#text.length > 0 ? this.#text : null,
      toolCalls,
      usage: this.#tokens(toolCalls),
      finishReason: this.#refused ? 'content_filter' : finishReason(this.#finish, toolCalls.length > 0),
    };
    if (this.#model) response.model = this.#model;
    events.push({ type: 'done', response });
    return events;
  }

  #callFor(index: number | undefined, id: string | undefined, position: number): PartialCall {
    const known = id ? this.#calls.find((c) => c.ownId && c.id === id) : undefined;
    if (known) return known;
    const key = index ?? (id ? this.#calls.length : position);
    const current = this.#atIndex.get(key);
    if (current && !(id && current.ownId && current.id !== id)) return current;
    const call: PartialCall = {
      index: key,
      id: id || `${this.#idPrefix}_${this.#calls.length}`,
      ownId: Boolean(id),
      name: '',
      args: '',
      started: false,
    };
    this.#calls.push(call);
    this.#atIndex.set(key, call);
    return call;
  }

  /** The tokens the server reported so far (only the last chunk carries them), or undefined. */
  get reportedUsage(): TokenUsage | undefined {
    return this.#usage && typeof this.#usage.prompt_tokens === 'number' ? this.#tokens([]) : undefined;
  }

  /** An estimate of the output that arrived before a failure, marked unreported (the usage chunk comes last). */
  get arrivedUsage(): TokenUsage {
    const args = this.#calls.map((call) => call.name + call.args).join('');
    return { inputTokens: 0, outputTokens: estimateTokens(this.#text + args), unreported: true };
  }

  // Chat Completions counts cached tokens inside prompt_tokens; the core keeps the buckets apart.
  #tokens(toolCalls: ToolCall[]): ModelResponse['usage'] {
    const usage = this.#usage;
    if (!usage || typeof usage.prompt_tokens !== 'number') {
      return {
        inputTokens: 0,
        outputTokens: estimateTokens(this.#text + (toolCalls.length ? JSON.stringify(toolCalls) : '')),
        unreported: true,
      };
    }
    const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
    return {
      inputTokens: Math.max(0, usage.prompt_tokens - cached),
      outputTokens: usage.completion_tokens ?? 0,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    };
  }
}

// vLLM's error event has no `error` key (which the SDK would throw on): `{ object: 'error',
// message, type, code }`. Thrown in the shape of the SDK's own stream error, so it is judged
// alike: its code is an HTTP status, and a server-side one may pass on a retry.
function streamError(chunk: ChunkLike): Error {
  const message = typeof chunk.message === 'string' && chunk.message ? chunk.message : 'no message';
  const code = Number(chunk.code);
  const serverSide = !(code >= 400 && code < 500) || code === 408 || code === 429;
  return Object.assign(new Error(message), {
    error: { message },
    type: serverSide ? 'server_error' : 'invalid_request_error',
  });
}

// Finish reasons after which an empty answer is what the model meant, or is already told (a limit, a filter).
const NORMAL_FINISH = new Set([
  'stop',
  'eos',
  'end_turn',
  'length',
  'max_tokens',
  'content_filter',
  'tool_calls',
  'function_call',
]);

function finishReason(raw: string | undefined, hasCalls: boolean): FinishReason {
  // A call cut off by the output limit has half its arguments: that, not the call, is the news.
  if (raw === 'length' || raw === 'max_tokens') return 'length';
  // Several OpenAI-compatible servers say `stop` even when the answer is tool calls.
  if (hasCalls) return 'tool_calls';
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
      return 'stop';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      return raw === undefined ? 'stop' : 'other';
  }
}
