import { randomUUID } from 'node:crypto';
import {
  AgentError,
  estimateTokens,
  type FinishReason,
  type ModelResponse,
  type StreamEvent,
  type TokenUsage,
  type ToolCall,
  unreportedUsage,
} from '@agentctl/core';
import type { GenerateContentResponse, Part } from '@google/genai';
import { type GoogleProviderData, LOCAL_CALL_ID_PREFIX } from './to-gemini-contents.js';

/** The parts of a stream chunk we read; unknown fields are ignored. */
export type ChunkLike = Pick<GenerateContentResponse, 'candidates' | 'usageMetadata' | 'promptFeedback'>;

/**
 * Builds stream events and the final response from `streamGenerateContent` chunks. Text parts
 * become tokens (thought summaries are kept apart, never shown); a `functionCall` part arrives
 * whole, so it yields its start and its arguments at once, and several of them, in one chunk or
 * spread over chunks between text, are parallel calls. The usage of the last chunk wins: the
 * API repeats the running totals. A stream that ends on a failed function call, or with nothing
 * said for a reason that is neither a stop, a limit nor a filter, fails (see {@link FAILED_FINISH}):
 * an empty answer would pass for a whole one.
 */
export class ResponseAssembler {
  readonly #model: string;
  #text = '';
  #calls: ToolCall[] = [];
  #parts: Part[] = [];
  #keepParts = false;
  #finish: string | undefined;
  #blocked = false;
  #usage: NonNullable<ChunkLike['usageMetadata']> | undefined;

  /** `model` is named in the error of a failed answer. */
  constructor(model = '(default)') {
    this.#model = model;
  }

  /** True once a candidate said why it stopped (or the prompt was blocked). */
  get complete(): boolean {
    return this.#finish !== undefined || this.#blocked;
  }

  /** Reads one chunk and returns the stream events it produces. */
  push(chunk: ChunkLike): StreamEvent[] {
    if (chunk.usageMetadata) this.#usage = chunk.usageMetadata;
    if (chunk.promptFeedback?.blockReason) this.#blocked = true;
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason) this.#finish = candidate.finishReason;
    const events: StreamEvent[] = [];
    for (const part of candidate?.content?.parts ?? []) {
      // An empty text part carries nothing to send back, unless it holds the signature.
      if (part.text === '' && !part.thoughtSignature && !part.functionCall) continue;
      this.#parts.push(part);
      if (part.thought || part.thoughtSignature) this.#keepParts = true;
      if (part.functionCall) {
        const id = part.functionCall.id || `${LOCAL_CALL_ID_PREFIX}${randomUUID().slice(0, 12)}`;
        const call: ToolCall = {
          id,
          name: part.functionCall.name ?? '',
          arguments: part.functionCall.args ?? {},
        };
        this.#calls.push(call);
        events.push({ type: 'tool_call_start', id, name: call.name });
        events.push({ type: 'tool_call_delta', id, argumentsDelta: JSON.stringify(call.arguments) });
      } else if (typeof part.text === 'string' && !part.thought && part.text.length > 0) {
        this.#text += part.text;
        events.push({ type: 'token', text: part.text });
      }
    }
    return events;
  }

  /** The closing events: one `tool_call_end` per call in order, then `done`. */
  finish(): StreamEvent[] {
    this.#checkFinish();
    const events: StreamEvent[] = this.#calls.map((call) => ({ type: 'tool_call_end', id: call.id, call }));
    const response: ModelResponse = {
      content: this.#text.length > 0 ? this.#text : null,
      toolCalls: this.#calls,
      usage: this.reportedUsage ?? unreportedUsage(),
      finishReason: this.#blocked ? 'content_filter' : finishReason(this.#finish, this.#calls.length > 0),
    };
    // Thought signatures must go back with the turn; without them the parts are rebuilt from the history.
    if (this.#keepParts)
      response.providerData = { google: { parts: this.#parts } satisfies GoogleProviderData };
    events.push({ type: 'done', response });
    return events;
  }

  // A failed call or an empty answer for no stated reason is an error; retried when nothing was
  // shown yet, since the model usually gets it right when asked again.
  #checkFinish(): void {
    const reason = this.#finish;
    if (this.#blocked || reason === undefined || this.#calls.length > 0) return;
    const failed = FAILED_FINISH[reason];
    const said = this.#text.length > 0;
    if (failed === undefined && (said || KNOWN_FINISH.has(reason))) return;
    // The SDK drops the candidate's finishMessage, so the reason is all there is to say.
    const what = failed ?? 'the model gave no answer';
    throw new AgentError(`google model ${this.#model} stopped with ${reason}, ${what}`, 'MODEL_ERROR', {
      retryable: !said,
      context: { provider: 'google', model: this.#model, finishReason: reason, retryable: !said },
    });
  }

  /** An estimate of the output that arrived before a failure with no usage reported yet, marked unreported. */
  get arrivedUsage(): TokenUsage {
    const text = this.#parts
      .map((part) => (part.text ?? '') + (part.functionCall ? JSON.stringify(part.functionCall) : ''))
      .join('');
    return { inputTokens: 0, outputTokens: estimateTokens(text), unreported: true };
  }

  /**
   * The tokens reported so far, or undefined. `promptTokenCount` includes the cached tokens, so
   * they are taken out of the input; thinking is billed as output, so thoughts join the output.
   */
  get reportedUsage(): TokenUsage | undefined {
    const u = this.#usage;
    if (!u) return undefined;
    const cached = u.cachedContentTokenCount ?? 0;
    return {
      inputTokens: Math.max(0, (u.promptTokenCount ?? 0) + (u.toolUsePromptTokenCount ?? 0) - cached),
      outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    };
  }
}

/** Finish reasons that mean the model's function call failed, with what they mean. */
const FAILED_FINISH: Readonly<Record<string, string>> = {
  MALFORMED_FUNCTION_CALL: 'the function call the model wrote was not valid',
  UNEXPECTED_TOOL_CALL: 'the model called a tool it was not given',
  TOO_MANY_TOOL_CALLS: 'the model called too many tools in a row',
};

// Reasons after which an empty answer is what the model meant (a stop) or is already told (a limit, a filter).
const KNOWN_FINISH = new Set([
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
]);

function finishReason(raw: string | undefined, hasCalls: boolean): FinishReason {
  switch (raw) {
    case 'STOP':
      return hasCalls ? 'tool_calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
      return 'content_filter';
    default:
      return hasCalls ? 'tool_calls' : 'other';
  }
}
