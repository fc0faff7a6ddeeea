import { AgentError } from '../errors.js';
import type { ChatParams, ModelProvider, ModelResponse, StreamEvent } from '../model.js';
import { collectStream } from '../model.js';
import { isPlainObject } from '../plain-object.js';
import { type Cassette, type NormalisedRequest, normaliseRequest } from '../recording-provider.js';
import type { TokenUsage } from '../usage.js';
import { streamResponse } from './stream-text.js';

/** Options of {@link ReplayModel}. */
export interface ReplayModelOptions {
  /** Where the cassette came from, for error messages. */
  source?: string;
  /** Milliseconds between streamed words. */
  delayMs?: number;
  /** Compare the requested model id with the recorded one. Default true. */
  matchModel?: boolean;
}

/** One difference between a recorded and an actual request. */
export interface RequestDifference {
  /** Where, as a path such as `messages[2].content`. */
  path: string;
  expected: unknown;
  actual: unknown;
}

/**
 * The offline `replay` model: answers each request with the recorded response of the first
 * unused cassette interaction whose normalised request equals it, so the interactions play in
 * order and parallel branches may interleave. A request that matches none fails with a diff
 * against the next unused interaction, naming each field that drifted.
 */
export class ReplayModel implements ModelProvider {
  readonly name = 'offline';
  readonly #cassette: Cassette;
  readonly #used: boolean[];
  readonly #options: ReplayModelOptions;
  #calls = 0;

  constructor(cassette: Cassette, options: ReplayModelOptions = {}) {
    if (cassette?.version !== 1 || !Array.isArray(cassette.interactions)) {
      throw new AgentError(
        `${where(options)}not a cassette: expected { version: 1, interactions: [...] }`,
        'MODEL_ERROR',
      );
    }
    this.#cassette = cassette;
    this.#used = cassette.interactions.map(() => false);
    this.#options = options;
  }

  /** Indexes of interactions not played yet. */
  get remaining(): number[] {
    return this.#used.flatMap((used, index) => (used ? [] : [index]));
  }

  /** Throws when some recorded interactions were never requested: the agent stopped early. */
  assertConsumed(): void {
    const left = this.remaining;
    if (left.length > 0) {
      throw new AgentError(
        `${where(this.#options)}${left.length} recorded interaction(s) were never requested: ${left.map((i) => `#${i + 1}`).join(', ')}`,
        'MODEL_ERROR',
      );
    }
  }

  chat(params: ChatParams): Promise<ModelResponse> {
    return collectStream(this.stream(params));
  }

  async *stream(params: ChatParams): AsyncGenerator<StreamEvent> {
    const call = ++this.#calls;
    const asked = normaliseRequest(params);
    const next = this.#used.indexOf(false);
    if (next < 0) {
      const total = this.#cassette.interactions.length;
      yield fail(
        `${where(this.#options)}unexpected model call #${call}: all ${total} recorded interaction(s) were used`,
      );
      return;
    }
    // Standing in for the recorded model, the replay is asked for its own id (`replay`).
    const like = (i: number) =>
      this.#options.matchModel === false
        ? { ...asked, model: this.#cassette.interactions[i].request.model }
        : asked;
    const index = this.#used.findIndex(
      (used, i) => !used && requestDifferences(this.#cassette.interactions[i].request, like(i)).length === 0,
    );
    if (index < 0) {
      const diffs = requestDifferences(this.#cassette.interactions[next].request, like(next));
      yield fail(
        `${where(this.#options)}model call #${call} does not match recorded interaction #${next + 1}; the agent's requests drifted from the recording:\n${formatDifferences(diffs)}`,
      );
      return;
    }
    this.#used[index] = true;
    const response = structuredClone(this.#cassette.interactions[index].response);
    response.usage = recordedUsage(response.usage);
    yield* streamResponse(response, { delayMs: this.#options.delayMs, signal: params.signal });
  }
}

// A cassette edited by hand may leave counts out: a missing count is 0, and a call recorded
// with neither input nor output tokens is one whose usage was not reported, not one that cost 0.
function recordedUsage(usage: Partial<TokenUsage> | undefined): TokenUsage {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const input = count(usage?.inputTokens);
  const output = count(usage?.outputTokens);
  const out: TokenUsage = {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    cacheReadTokens: count(usage?.cacheReadTokens) ?? 0,
    cacheWriteTokens: count(usage?.cacheWriteTokens) ?? 0,
  };
  const unsaid = input === undefined && output === undefined && usage?.unreported !== false;
  if (usage?.unreported === true || unsaid) out.unreported = true;
  return out;
}

/** Every field where `actual` differs from `expected`, depth first, as paths. */
export function requestDifferences(
  expected: NormalisedRequest,
  actual: NormalisedRequest,
): RequestDifference[] {
  const out: RequestDifference[] = [];
  compare(expected, actual, '', out);
  return out;
}

/** Renders differences as readable lines: the path, then what was recorded and what came. */
export function formatDifferences(diffs: readonly RequestDifference[], limit = 8): string {
  const lines = diffs
    .slice(0, limit)
    .map((d) => `  ${d.path || '(request)'}: expected ${show(d.expected)}, got ${show(d.actual)}`);
  if (diffs.length > limit) lines.push(`  ... and ${diffs.length - limit} more difference(s)`);
  return lines.join('\n');
}

function compare(expected: unknown, actual: unknown, path: string, out: RequestDifference[]): void {
  if (Object.is(expected, actual)) return;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    for (let i = 0; i < length; i++) compare(expected[i], actual[i], `${path}[${i}]`, out);
    return;
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) compare(expected[key], actual[key], path ? `${path}.${key}` : key, out);
    return;
  }
  out.push({ path, expected, actual });
}

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function fail(message: string): StreamEvent {
  return { type: 'error', error: new AgentError(message, 'MODEL_ERROR') };
}

function where(options: ReplayModelOptions): string {
  return options.source ? `replay ${options.source}: ` : 'replay: ';
}
