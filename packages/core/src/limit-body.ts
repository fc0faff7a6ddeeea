/**
 * `response` with a body that fails with `tooLarge()` as soon as more than `maxBytes` of it have
 * been read, instead of being read whole (`response.json()` reads until the server stops, and a
 * hostile one never does). The error cancels the rest, which closes the connection; `onCut` is told
 * too (a reader that runs on its own, such as an event stream's, may leave its caller waiting).
 *
 * @example
 * const answer = limitBody(await fetch(url), 2 ** 20, () => new Error('more than 1 MiB'));
 * await answer.json(); // rejects past 1 MiB
 */
export function limitBody(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
  onCut?: (error: Error) => void,
): Response {
  if (!response.body) return response;
  let read = 0;
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read <= maxBytes) return controller.enqueue(chunk);
        const error = tooLarge();
        controller.error(error);
        onCut?.(error);
      },
    }),
  );
  return new Response(limited, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
