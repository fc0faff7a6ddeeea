import type { FakeReply, SseEvent } from '../../../../test/support/fake-server.js';

/** Usage as the Gemini API reports it (`usageMetadata`). */
export interface WireUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/** One part of the model's answer as the fake server streams it. */
export type WirePart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string };

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chunk(parts: WirePart[], extra: Record<string, unknown> = {}): SseEvent {
  return {
    data: {
      candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
      modelVersion: 'gemini-fake-001',
      responseId: 'resp_fake',
    },
  };
}

/**
 * A `streamGenerateContent?alt=sse` answer: text split into chunks of `size` characters, each
 * function call in a chunk of its own (the API sends a call whole), the last chunk with the
 * finish reason and `usageMetadata` (which, like the real API, also carries fields we ignore).
 */
export function geminiStream(
  parts: WirePart[],
  options: { size?: number; usage?: WireUsage; finishReason?: string } = {},
): SseEvent[] {
  const size = options.size ?? 4;
  const usage = options.usage ?? { promptTokenCount: 12, candidatesTokenCount: 6 };
  const events: SseEvent[] = [];
  for (const part of parts) {
    if ('text' in part && !part.thought) {
      const texts = pieces(part.text, size);
      for (const [i, text] of texts.entries()) {
        const signed = i === texts.length - 1 && part.thoughtSignature;
        events.push(chunk([{ text, ...(signed ? { thoughtSignature: part.thoughtSignature } : {}) }]));
      }
    } else events.push(chunk([part]));
  }
  const total = usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0);
  events.push({
    data: {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: '' }] },
          finishReason: options.finishReason ?? 'STOP',
          index: 0,
          safetyRatings: [],
        },
      ],
      usageMetadata: {
        ...usage,
        totalTokenCount: total,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.promptTokenCount }],
      },
      modelVersion: 'gemini-fake-001',
      responseId: 'resp_fake',
    },
  });
  return events;
}

/** A streamed text answer. */
export function geminiText(
  text: string,
  options: { size?: number; usage?: WireUsage; finishReason?: string } = {},
): SseEvent[] {
  return geminiStream([{ text }], options);
}

/** The body of a Gemini API error (`google.rpc.Status`), with a `RetryInfo` detail when a delay is given. */
export function geminiErrorBody(code: number, status: string, message: string, retryDelay?: string) {
  const details = retryDelay
    ? [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            { quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests' },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
      ]
    : [];
  return { error: { code, message, status, ...(details.length ? { details } : {}) } };
}

/** An HTTP error reply in the Gemini API's shape. */
export function geminiError(code: number, status: string, message: string, retryDelay?: string): FakeReply {
  return { status: code, json: geminiErrorBody(code, status, message, retryDelay) };
}
