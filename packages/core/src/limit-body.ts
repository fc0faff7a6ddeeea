/** Options of {@link limitBody}. */
export interface LimitBodyOptions {
  /** Told the error too (a reader that runs on its own, such as an event stream's, may leave its caller waiting). */
  onCut?: (error: Error) => void;
  /**
   * Count each server-sent event on its own (bytes since the last blank line), for a stream that
   * may rightly last for hours: only one event that never ends is cut.
   */
  perEvent?: boolean;
}

/**
 * `response` with a body that fails with `tooLarge()` as soon as more than `maxBytes` of it have
 * been read (of one event, with `perEvent`), instead of being read whole (`response.json()` reads
 * until the server stops, and a hostile one never does). The error cancels the rest, which closes
 * the connection.
 *
 * @example
 * const answer = limitBody(await fetch(url), 2 ** 20, () => new Error('more than 1 MiB'));
 * await answer.json(); // rejects past 1 MiB
 */
export function limitBody(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
  options: LimitBodyOptions = {},
): Response {
  if (!response.body) return response;
  const over = options.perEvent ? eventOver(maxBytes) : totalOver(maxBytes);
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!over(chunk)) return controller.enqueue(chunk);
        const error = tooLarge();
        controller.error(error);
        options.onCut?.(error);
      },
    }),
  );
  return new Response(limited, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

// Whether the body has passed `maxBytes` with `chunk`.
function totalOver(maxBytes: number): (chunk: Uint8Array) => boolean {
  let read = 0;
  return (chunk) => {
    read += chunk.byteLength;
    return read > maxBytes;
  };
}

// Whether one event has passed `maxBytes` with `chunk`: a blank line (LF, CR or CRLF twice) ends one.
function eventOver(maxBytes: number): (chunk: Uint8Array) => boolean {
  let read = 0;
  let lineStart = true;
  let afterCR = false;
  return (chunk) => {
    for (const byte of chunk) {
      if (byte === 10 && afterCR) {
        afterCR = false;
        continue;
      }
      if (byte === 10 || byte === 13) {
        if (lineStart) read = 0;
        lineStart = true;
        afterCR = byte === 13;
        continue;
      }
      lineStart = false;
      afterCR = false;
      if (++read > maxBytes) return true;
    }
    return false;
  };
}
