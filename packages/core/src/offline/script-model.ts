import { AgentError, type AgentErrorCode } from '../errors.js';
import type { ToolCall } from '../messages.js';
import type { ChatParams, ModelProvider, ModelResponse, StreamEvent } from '../model.js';
import { collectStream } from '../model.js';
import { estimateTokens, type TokenUsage } from '../usage.js';
import { estimateInput, streamResponse } from './stream-text.js';

/** One scripted answer of the `script` model. */
export interface ScriptTurn {
  /** Only answer when the last user message contains this text (or matches this pattern). */
  match?: string | RegExp;
  /** The text of the answer. */
  text?: string;
  /** Tool calls of the answer; ids are generated when left out. */
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown>; id?: string }>;
  /** Fail this call instead of answering. */
  error?: string | { message: string; code?: AgentErrorCode; retryable?: boolean };
  /** Token counts to report instead of the estimate. */
  usage?: TokenUsage;
  /** Milliseconds between streamed words, to act like a slow model. */
  delayMs?: number;
  /**
   * The catch-all: answers any call no other turn takes, as often as needed, and is never
   * "unused". Without one, an unexpected call fails loudly.
   */
  fallback?: boolean;
}

/** A request the script model received, as it was at the time. */
export interface RecordedRequest extends Omit<ChatParams, 'signal'> {
  /** Index of the turn that answered it. */
  turn: number;
}

/** Options of {@link ScriptModel}. */
export interface ScriptModelOptions {
  /** Keep a copy of every request in `requests` (copies the history each call). */
  record?: boolean;
  /** Where the script came from, for error messages. */
  source?: string;
}

/**
 * The offline `script` model: answers each call with the next turn of a fixed script. A call
 * with no turn left, or whose user message matches no remaining turn, fails loudly;
 * {@link ScriptModel.assertConsumed} fails when turns were left unused.
 */
export class ScriptModel implements ModelProvider {
  readonly name = 'offline';
  /** Every request received, when recording is on. */
  readonly requests: RecordedRequest[] = [];
  readonly #turns: readonly ScriptTurn[];
  readonly #used: boolean[];
  readonly #options: ScriptModelOptions;
  #calls = 0;

  constructor(turns: readonly ScriptTurn[], options: ScriptModelOptions = {}) {
    this.#turns = turns;
    // A fallback turn is never waited for: it counts as used from the start and answers again and again.
    this.#used = turns.map((turn) => turn.fallback === true);
    this.#options = options;
  }

  /** Turns not used yet, by index. */
  get remaining(): number[] {
    return this.#used.flatMap((used, index) => (used ? [] : [index]));
  }

  /** Throws when some turns were never used: a test whose agent stopped early should fail. */
  assertConsumed(): void {
    const left = this.remaining;
    if (left.length > 0) {
      throw new AgentError(
        `${this.#where()}${left.length} scripted turn(s) were never used: ${left.map((i) => describe(this.#turns[i], i)).join(', ')}`,
        'MODEL_ERROR',
      );
    }
  }

  chat(params: ChatParams): Promise<ModelResponse> {
    return collectStream(this.stream(params));
  }

  async *stream(params: ChatParams): AsyncGenerator<StreamEvent> {
    const call = ++this.#calls;
    if (call === 1) this.#catchUp(params.messages);
    const lastUser = lastUserMessage(params);
    const index = this.#pick(lastUser);
    if (index < 0) {
      const left = this.remaining;
      const why =
        left.length === 0
          ? 'the script has no turn left'
          : `no remaining turn matches the user message (remaining: ${left.map((i) => describe(this.#turns[i], i)).join(', ')})`;
      yield {
        type: 'error',
        error: new AgentError(
          `${this.#where()}unexpected model call #${call}: ${why}; last user message: ${JSON.stringify(lastUser.slice(0, 120))}`,
          'MODEL_ERROR',
        ),
      };
      return;
    }
    this.#used[index] = true;
    if (this.#options.record) {
      const { signal: _signal, ...rest } = params;
      this.requests.push({ ...structuredClone(rest), turn: index });
    }
    const turn = this.#turns[index];
    if (turn.error !== undefined) {
      const spec = typeof turn.error === 'string' ? { message: turn.error } : turn.error;
      yield {
        type: 'error',
        error: new AgentError(spec.message, spec.code ?? 'PROVIDER_ERROR', {
          retryable: spec.retryable ?? false,
        }),
      };
      return;
    }
    const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${call}_${i}`,
      name: c.name,
      arguments: c.arguments ?? {},
    }));
    const content = turn.text ?? (toolCalls.length > 0 ? null : '');
    const response: ModelResponse = {
      content,
      toolCalls,
      usage: turn.usage ?? {
        inputTokens: estimateInput(params),
        outputTokens: estimateTokens((content ?? '') + JSON.stringify(toolCalls.map((c) => c.arguments))),
      },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    };
    yield* streamResponse(response, { delayMs: turn.delayMs, signal: params.signal });
  }

  // A conversation continued in a new process (a resumed session) already holds the answers of the
  // first turns: those turns count as used, so the script goes on where it stopped.
  #catchUp(messages: ChatParams['messages']): void {
    let next = 0;
    for (const message of messages) {
      if (message.role !== 'assistant' || next >= this.#turns.length) continue;
      if (answers(this.#turns[next], message)) this.#used[next++] = true;
    }
  }

  // The next unused turn answers unless its `match` fails; then the first unused turn that matches;
  // then the fallback turn, when there is one.
  #pick(lastUser: string): number {
    const fallback = this.#turns.findIndex((turn) => turn.fallback === true);
    const next = this.#used.indexOf(false);
    if (next < 0) return fallback;
    if (matches(this.#turns[next], lastUser)) return next;
    for (let i = next + 1; i < this.#turns.length; i++) {
      if (!this.#used[i] && this.#turns[i].match !== undefined && matches(this.#turns[i], lastUser)) return i;
    }
    return fallback;
  }

  #where(): string {
    return this.#options.source ? `${this.#options.source}: ` : '';
  }
}

function matches(turn: ScriptTurn, text: string): boolean {
  if (turn.match === undefined) return true;
  return typeof turn.match === 'string' ? text.includes(turn.match) : turn.match.test(text);
}

function describe(turn: ScriptTurn, index: number): string {
  const what = turn.error
    ? 'error'
    : turn.toolCalls?.length
      ? `calls ${turn.toolCalls.map((c) => c.name).join('+')}`
      : JSON.stringify((turn.text ?? '').slice(0, 30));
  return `#${index + 1} (${what})`;
}

function lastUserMessage(params: ChatParams): string {
  for (let i = params.messages.length - 1; i >= 0; i--) {
    if (params.messages[i].role === 'user') return params.messages[i].content ?? '';
  }
  return '';
}

function answers(turn: ScriptTurn, message: { content: string | null; toolCalls?: ToolCall[] }): boolean {
  if (turn.error !== undefined) return false;
  const calls = turn.toolCalls ?? [];
  const made = message.toolCalls ?? [];
  if (calls.length !== made.length) return false;
  if (
    calls.some(
      (c, i) =>
        c.name !== made[i].name ||
        // A call recorded redacted cannot be compared by its arguments: its name and place must do.
        (!made[i].argumentsRedacted &&
          JSON.stringify(c.arguments ?? {}) !== JSON.stringify(made[i].arguments)),
    )
  ) {
    return false;
  }
  const text = turn.text ?? (calls.length > 0 ? null : '');
  return (message.content ?? '') === (text ?? '');
}
