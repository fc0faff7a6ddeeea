import { cutShort } from './cut-short.js';
import type { AgentError } from './errors.js';
import {
  type ChatParams,
  collectStream,
  type ModelProvider,
  type ModelResponse,
  type StreamEvent,
} from './model.js';
import { type FetchWatch, reportingProgress } from './provider-fetch.js';
import {
  type AttemptControl,
  type FailureContext,
  providerFailure,
  providerStream,
  STALL_FACTOR,
} from './retry-policy.js';
import { type SdkLogger, sdkLogger } from './sdk-logger.js';
import { type RetryPolicy, retryPolicy } from './timing/backoff.js';
import { type TokenUsage, unreportedUsage } from './usage.js';
import { sdkWarningsOnce } from './warn-once.js';

/** What an attempt of a network provider may need beyond its request. */
export interface NetworkCall {
  /** The key the client was made with, never to be shown in an error. */
  apiKey: string;
  /** Every string never to be shown in an error: the key and the provider's other credentials. */
  secrets: readonly string[];
  /** The idle timeout of an attempt, ms. */
  timeoutMs: number;
  /** Where the key comes from (see {@link NetworkProviderOptions.keySource}). */
  keySource?: string;
}

/** The options every network provider takes (each provider's options extend them). */
export interface NetworkProviderOptions {
  /** The API key; a function is asked on the first request (so a missing key fails then, not earlier). */
  apiKey: string | (() => string);
  /** Where the key comes from, such as `OPENAI_API_KEY`: named when the server refuses it (401). */
  keySource?: string;
  /** The model used when a request names none. */
  defaultModel?: string;
  /**
   * Ms without any data from the server, before its answer starts or between events, that fail an
   * attempt. Default 60000. Keep-alives (pings, SSE comments) count as data, but no part of the
   * answer for `STALL_FACTOR` times this fails the attempt too.
   */
  timeout?: number;
  /** Attempts and backoff of the retries; retries happen only before the first token. */
  retry?: Partial<RetryPolicy>;
}

/** What {@link networkProvider} needs from a provider package: its SDK client and one attempt. */
export interface NetworkProviderSpec<Client> extends NetworkProviderOptions {
  /** The provider's registry name, such as `openai`. */
  name: string;
  /** Credentials sent besides the key (see `credentialValues`), never to be shown in an error. */
  secrets?: readonly string[];
  /**
   * Makes the SDK client, once, at the first request; its own retries must be off. `logger` is
   * for the SDK's `logger` option: stderr only, the key and {@link secrets} redacted.
   */
  connect(apiKey: string, timeoutMs: number, logger: SdkLogger): Client;
  /** Builds the request once per call and returns one attempt of it, made again on each retry. */
  prepare(
    client: Client,
    params: ChatParams & { model: string },
    call: NetworkCall,
  ): (control: AttemptControl) => AsyncIterable<StreamEvent>;
}

/**
 * The provider of a vendor SDK: the client made lazily with the key, each call streamed through
 * {@link providerStream} (the shared retry policy, the idle timeout, one final `error` event), and
 * `withRetry` for the retry middleware. Provider packages supply only the client and the attempt.
 *
 * @example
 * networkProvider({ name: 'acme', apiKey, connect: (key) => new Acme({ key, maxRetries: 0 }), prepare: (client, params) => (control) => acmeAttempt(client, params, control) });
 */
export function networkProvider<Client>(spec: NetworkProviderSpec<Client>): ModelProvider {
  const policy = retryPolicy(spec.retry);
  const timeoutMs = spec.timeout ?? 60_000;
  let client: Client | undefined;
  let apiKey = '';
  const secrets = (): string[] => [apiKey, ...(spec.secrets ?? [])];
  const connect = (): Client => {
    if (client !== undefined) return client;
    apiKey = typeof spec.apiKey === 'function' ? spec.apiKey() : spec.apiKey;
    client = spec.connect(apiKey, timeoutMs, sdkLogger(secrets()));
    return client;
  };
  const provider: ModelProvider = {
    name: spec.name,
    withRetry: (more) => networkProvider({ ...spec, retry: { ...spec.retry, ...more } }),
    chat: (params: ChatParams): Promise<ModelResponse> => collectStream(provider.stream(params)),
    stream: (params: ChatParams) =>
      providerStream({
        provider: spec.name,
        model: params.model || spec.defaultModel,
        signal: params.signal,
        policy,
        idleTimeoutMs: timeoutMs,
        stallTimeoutMs: timeoutMs * STALL_FACTOR,
        secrets,
        prepare: (model) => {
          const client = connect();
          const call = { apiKey, secrets: secrets(), timeoutMs, keySource: spec.keySource };
          return spec.prepare(client, { ...params, model }, call);
        },
      }),
    dispose: async () => {
      client = undefined;
    },
  };
  return provider;
}

/** What a failed call says when the server answered 200 with no stream event at all: most often a base_url that is not the API. */
export const NO_STREAM_EVENTS =
  "the server's answer held no stream events; check that base_url is the API's address";

// An event of a shape the assembler did not expect (a `null` among the choices) is the server's
// fault: said as such, quoting the event, not as a TypeError from inside agentctl.
function pushed<Item>(assembler: StreamAssembler<Item>, item: Item): StreamEvent[] {
  try {
    return assembler.push(item);
  } catch (error) {
    // Only a TypeError is the assembler tripping on a shape; anything else it threw on purpose
    // (an error the server sent as an event), for providerFailure to judge.
    if (!(error instanceof TypeError)) throw error;
    // The assembler's own error (reading a property of null) would only read as a bug of agentctl's.
    const text = JSON.stringify(item) ?? String(item);
    throw new Error(`the server sent an event that cannot be read: ${cutShort(text, 200)}`);
  }
}

// A response whose type says it is no event stream (a web page, a JSON body from a server that
// does not stream): asking again would get the same.
function notAStream(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  return Boolean(type) && type !== 'text/event-stream';
}

function noEvents(contentType: string | undefined): string {
  if (!notAStream(contentType)) return NO_STREAM_EVENTS;
  const type = contentType?.split(';')[0].trim();
  return `the server answered with ${type}, not an event stream; check that base_url is the API's address, and that the server streams`;
}

// A server that began its answer has billed for it: with no usage reported, the call's tokens are
// unknown (an estimate of what arrived, marked unreported), not zero. Before any item the request
// was refused or never reached the model, and costs nothing.
function spentUsage(assembler: StreamAssembler<unknown>, items: number): TokenUsage | undefined {
  if (assembler.reportedUsage) return assembler.reportedUsage;
  if (items === 0) return undefined;
  return assembler.arrivedUsage ?? unreportedUsage();
}

/** A provider's parser of its SDK's stream: raw items in, stream events out. */
export interface StreamAssembler<Item> {
  /** Reads one item of the SDK's stream and returns the stream events it produces. */
  push(item: Item): StreamEvent[];
  /** True once the stream's last event (a stop or finish reason) arrived. */
  readonly complete: boolean;
  /** Tokens the server reported so far: spent even when the call fails. */
  readonly reportedUsage: TokenUsage | undefined;
  /**
   * For a call that fails after the server began its answer without reporting usage (OpenAI
   * reports it only in the last chunk): agentctl's estimate of what arrived, marked `unreported`.
   * Without it such a call counts as unreported with zero tokens, never as a call that cost none.
   */
  readonly arrivedUsage?: TokenUsage;
  /** The closing events: tool call ends, then `done`; throws when the stream's end says the answer failed. */
  finish(): StreamEvent[];
}

/** One attempt of an SDK streaming call, as {@link sdkAttempt} runs it. */
export interface SdkAttempt<Item> {
  provider: string;
  model: string;
  control: AttemptControl;
  /** The caller's signal, to tell a cancel from a timeout. */
  signal: AbortSignal | undefined;
  call: NetworkCall;
  assembler: StreamAssembler<Item>;
  /** Starts the request with the attempt's signal; returns the SDK's stream. */
  open(signal: AbortSignal): Promise<AsyncIterable<Item>>;
  /** What the error says of itself beyond its status: the API's message, a transient stream error, a refused key, an exhausted quota. */
  describe?(
    error: unknown,
  ): Pick<FailureContext, 'apiMessage' | 'incomplete' | 'transient' | 'keyRefused' | 'quotaExhausted'>;
  /** Adds what only the provider can read to the final failure (a retry delay in the error body). */
  amend?(failure: AgentError, error: unknown): void;
}

/**
 * Runs one attempt of an SDK's streaming call: the SDK's per-request warnings shown once
 * ({@link sdkWarningsOnce}), the idle timer touched on every item, a stream that ends before its
 * last event treated as a dropped connection, and any failure turned by {@link providerFailure}
 * into an error that says whether output had begun and what the failed call spent.
 */
export async function* sdkAttempt<Item>(attempt: SdkAttempt<Item>): AsyncGenerator<StreamEvent> {
  const { provider, model, control, assembler } = attempt;
  let committed = false;
  let items = 0;
  let closing: StreamEvent[];
  // Bytes of the body keep the call alive too (keep-alive pings the SDK never yields), but only
  // events of the stream are the answer; until the attempt is over: a touch after it would start
  // a timer nobody stops.
  let live = true;
  const watch: FetchWatch = {
    progress: () => {
      if (live) control.alive();
    },
  };
  try {
    const stream = await sdkWarningsOnce(() => reportingProgress(watch, () => attempt.open(control.signal)));
    control.touch();
    for await (const item of stream) {
      items++;
      control.touch();
      // An event that is no object (`data: null`, `data: 42`) holds nothing an assembler reads.
      if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
      for (const out of pushed(assembler, item)) {
        committed = true;
        yield out;
      }
    }
    // SDKs end a stream quietly when it is aborted, so an early end is checked here.
    if (control.signal.aborted) throw new Error('aborted');
    if (!assembler.complete) {
      // Not one event: a 200 that is no event stream (a web page, a proxy that does not stream).
      const said = items === 0 ? noEvents(watch.contentType) : 'the stream ended before its last event';
      throw providerFailure(new Error(said), {
        provider,
        model,
        committed,
        incomplete: items > 0 ? true : notAStream(watch.contentType) ? 'not a stream' : 'empty',
        usage: spentUsage(assembler, items),
      });
    }
    // Inside the try: an assembler may refuse the answer it got (a malformed call, nothing said).
    closing = assembler.finish();
  } catch (error) {
    const described = attempt.describe?.(error);
    // A provider whose SDK throws on a body that is no event stream (Gemini's) says it is empty; the type says more.
    if (described?.incomplete === 'empty' && notAStream(watch.contentType)) {
      described.incomplete = 'not a stream';
      described.apiMessage = noEvents(watch.contentType);
    }
    const failure = providerFailure(error, {
      provider,
      model,
      committed,
      aborted: attempt.signal?.aborted,
      timedOut: control.timedOut,
      idleTimeoutMs: attempt.call.timeoutMs,
      stalled: control.stalled,
      stallTimeoutMs: attempt.call.timeoutMs * STALL_FACTOR,
      usage: spentUsage(assembler, items),
      secrets: attempt.call.secrets,
      keySource: attempt.call.keySource,
      ...described,
    });
    attempt.amend?.(failure, error);
    throw failure;
  } finally {
    live = false;
  }
  yield* closing;
}
