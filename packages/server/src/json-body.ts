import { type JsonSplit, jsonChunks } from '@agentctl/core';

/**
 * A response body of `JSON.stringify(value)` as UTF-8, written a chunk at a time as the client
 * reads (see `jsonChunks`): a session over 512 MB of JSON is longer than any string, and one held
 * whole would cost its size in memory for every client reading one.
 *
 * @example
 * return c.body(jsonBody(view, (key) => key === 'events'), 200, { 'content-type': 'application/json' });
 */
export function jsonBody(value: unknown, split: JsonSplit): ReadableStream<Uint8Array> {
  const chunks = jsonChunks(value, { split });
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    // Pulled: nothing is stringified ahead of what the socket takes.
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    // A client gone: the rest is never stringified.
    cancel() {
      chunks.return(undefined);
    },
  });
}
