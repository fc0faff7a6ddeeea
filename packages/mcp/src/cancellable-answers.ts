import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

type Sent = { id?: unknown; method?: unknown; params?: { requestId?: unknown } };

// The JSON-RPC message a POST carries, when its body is one (the transport sends one per POST).
function sentMessage(body: unknown): Sent | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message = JSON.parse(body) as unknown;
    return typeof message === 'object' && message !== null && !Array.isArray(message)
      ? (message as Sent)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A fetch for the streamable HTTP transport that ends the answer to a request once the client has
 * cancelled it (`notifications/cancelled`, sent on a timeout or an abort): the transport holds the
 * connection of each request until the server answers, and a server that ignores the cancellation
 * would otherwise keep one open for every call that timed out, for as long as the client lives.
 */
export function cancellableAnswers(base: FetchLike = fetch): FetchLike {
  const open = new Map<string | number, AbortController>();
  return async (url, init) => {
    const message = sentMessage(init?.body);
    if (message?.method === 'notifications/cancelled') {
      const id = message.params?.requestId;
      try {
        return await base(url, init);
      } finally {
        if (typeof id === 'string' || typeof id === 'number') {
          open.get(id)?.abort(new Error('the request was cancelled'));
          open.delete(id);
        }
      }
    }
    const id = message?.id;
    if (typeof message?.method !== 'string' || (typeof id !== 'string' && typeof id !== 'number'))
      return base(url, init);
    const controller = new AbortController();
    open.set(id, controller);
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    let response: Response;
    try {
      response = await base(url, { ...init, signal });
    } catch (error) {
      open.delete(id);
      throw error;
    }
    if (!response.body) {
      open.delete(id);
      return response;
    }
    // Forgotten once the answer has been read to its end (or failed).
    const forget = () => {
      if (open.get(id) === controller) open.delete(id);
    };
    const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: forget }));
    controller.signal.addEventListener('abort', forget, { once: true });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
