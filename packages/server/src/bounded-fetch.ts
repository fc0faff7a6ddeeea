import { limitBody } from '@agentctl/core';

/** The error a body read through {@link boundedFetch} fails with once it passes its limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(
      `its response passed ${limit.toLocaleString('en')} bytes, the most agentctl reads of one that is not an event stream; it stopped reading there`,
    );
    this.name = new.target.name;
  }
}

/**
 * A `fetch` whose answers fail to read once their body passes `maxBytes`, the connection closed
 * there, instead of being buffered whole (`response.json()` reads until the server stops, and a
 * hostile one never does). A successful event stream is left as it is: it may last for hours, and
 * its reader bounds each event.
 *
 * @example
 * const fetchImpl = boundedFetch(16 * 2 ** 20);
 * await (await fetchImpl(url)).json(); // rejects with BodyTooLargeError past 16 MiB
 */
export function boundedFetch(maxBytes: number, fetchImpl: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const stream = response.ok && response.headers.get('content-type')?.startsWith('text/event-stream');
    if (!response.body || stream) return response;
    if (Number(response.headers.get('content-length')) > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new BodyTooLargeError(maxBytes);
    }
    return limitBody(response, maxBytes, () => new BodyTooLargeError(maxBytes));
  };
}
