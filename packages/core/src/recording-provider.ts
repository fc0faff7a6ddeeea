import type { Message } from './messages.js';
import type { ChatParams, JsonSchema, ModelProvider, ModelResponse, StreamEvent } from './model.js';
import { collectStream } from './model.js';

/** A message as a cassette keeps it: tool call ids replaced by their order, provider data dropped. */
export interface NormalisedMessage {
  role: Message['role'];
  content: string | null;
  name?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  toolCallId?: string;
  isError?: boolean;
  /** An image stands in the cassette as its type, size and a hash of its bytes, not the bytes. */
  image?: { mediaType: string; bytes: number; hash: string; text?: string };
}

/** The parts of a request that decide the answer, free of ids, signals, headers and keys. */
export interface NormalisedRequest {
  model: string;
  system?: string;
  messages: NormalisedMessage[];
  tools?: Array<{ name: string; description: string; parameters: JsonSchema }>;
  responseFormat?: { type: 'json_schema'; name?: string; schema: JsonSchema };
}

/** One recorded model call. */
export interface CassetteInteraction {
  /** The provider that answered, such as `openai`. */
  provider?: string;
  request: NormalisedRequest;
  response: ModelResponse;
}

/** Recorded model calls as plain JSON (the CLI stores it as YAML), played back by the `replay` model. */
export interface Cassette {
  version: 1;
  interactions: CassetteInteraction[];
}

/** A new, empty {@link Cassette}. */
export function emptyCassette(): Cassette {
  return { version: 1, interactions: [] };
}

/**
 * The comparable form of a request. Tool call ids differ from run to run, so each becomes
 * `call_<n>` in order of first appearance (and the results pointing at it follow); sampling
 * settings, signals and provider options are left out because they do not change which answer
 * a replay should give.
 */
export function normaliseRequest(params: ChatParams): NormalisedRequest {
  const ids = new Map<string, string>();
  const idOf = (id: string) => {
    let mapped = ids.get(id);
    if (mapped === undefined) {
      mapped = `call_${ids.size + 1}`;
      ids.set(id, mapped);
    }
    return mapped;
  };
  const messages = params.messages.map((m): NormalisedMessage => {
    const out: NormalisedMessage = { role: m.role, content: m.content ?? null };
    if (m.name !== undefined) out.name = m.name;
    if (m.toolCalls?.length) {
      out.toolCalls = m.toolCalls.map((c) => ({ id: idOf(c.id), name: c.name, arguments: c.arguments }));
    }
    if (m.toolCallId !== undefined) out.toolCallId = idOf(m.toolCallId);
    if (m.isError) out.isError = true;
    if (m.image) {
      out.image = { mediaType: m.image.mediaType, bytes: m.image.data.length, hash: fnv1a(m.image.data) };
      if (m.image.text !== undefined) out.image.text = m.image.text;
    }
    return out;
  });
  const request: NormalisedRequest = { model: params.model, messages };
  if (params.system !== undefined) request.system = params.system;
  if (params.tools?.length) {
    request.tools = params.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }));
  }
  if (params.responseFormat) {
    const { type, schema, name } = params.responseFormat;
    request.responseFormat = name === undefined ? { type, schema } : { type, name, schema };
  }
  // A JSON round trip drops `undefined` values so a request compares equal to its YAML copy.
  return JSON.parse(JSON.stringify(request)) as NormalisedRequest;
}

/** Options of {@link recordingProvider}. */
export interface RecordingOptions {
  /** Told of each call that failed: a cassette keeps answers only, so it has no record of it. */
  onFailure?: (error: unknown) => void;
}

/**
 * Wraps a provider so every successful call is appended to `cassette` as a normalised request
 * and the full response. Only request content is kept: never headers, keys or base URLs.
 *
 * @example
 * const cassette = emptyCassette();
 * const agent = createAgent({ name: 'a', provider: recordingProvider(openai, cassette) });
 */
export function recordingProvider(
  inner: ModelProvider,
  cassette: Cassette,
  options: RecordingOptions = {},
): ModelProvider {
  const retrying = inner.withRetry?.bind(inner);
  return {
    ...(retrying && { withRetry: (policy) => recordingProvider(retrying(policy), cassette, options) }),
    name: inner.name,
    chat(params: ChatParams): Promise<ModelResponse> {
      return collectStream(this.stream(params));
    },
    async *stream(params: ChatParams): AsyncGenerator<StreamEvent> {
      const request = normaliseRequest(params);
      try {
        for await (const event of inner.stream(params)) {
          if (event.type === 'done') {
            cassette.interactions.push({
              provider: inner.name,
              request,
              response: structuredClone(event.response),
            });
          } else if (event.type === 'error') options.onFailure?.(event.error);
          yield event;
        }
      } catch (error) {
        options.onFailure?.(error);
        throw error;
      }
    },
    dispose: inner.dispose ? () => inner.dispose!() : undefined,
  };
}

// A short stable fingerprint, so cassettes stay small and do not carry image bytes.
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
