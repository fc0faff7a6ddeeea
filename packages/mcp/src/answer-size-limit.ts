import { limitBody } from '@agentctl/core';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * The most bytes one answer of an MCP server over HTTP may have: the SDK's stdio client holds a
 * message to the same 10 MB, and an HTTP answer read whole would otherwise take any size into memory.
 */
export const MAX_HTTP_ANSWER_BYTES = 10 * 2 ** 20;

/** What an HTTP answer past {@link MAX_HTTP_ANSWER_BYTES} fails with. */
export class AnswerTooLargeError extends Error {
  constructor(limit: number) {
    super(`its answer was larger than ${limit / 2 ** 20} MB, the most agentctl reads of one MCP answer`);
    this.name = new.target.name;
  }
}

/**
 * A fetch for the streamable HTTP transport whose answers to POST requests (one per call) fail
 * once they pass `limit` bytes. The long-lived GET stream of server notifications is held to
 * `limit` bytes an event.
 * A streamed (SSE) answer cut off is also told to `onStreamCut`: the transport reads such a stream
 * on its own and leaves the call waiting for an answer that will not come.
 */
export function answerSizeLimit(
  onStreamCut: (error: AnswerTooLargeError) => void,
  limit = MAX_HTTP_ANSWER_BYTES,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const streamed = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const tooLarge = () => new AnswerTooLargeError(limit);
    // The GET stream of server notifications may last for hours: one event of it is held to the limit.
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST')
      return streamed ? limitBody(response, limit, tooLarge, { perEvent: true }) : response;
    return limitBody(response, limit, tooLarge, {
      onCut: (error) => {
        if (streamed) onStreamCut(error as AnswerTooLargeError);
      },
    });
  };
}
