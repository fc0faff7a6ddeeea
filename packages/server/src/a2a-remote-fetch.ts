import { BodyTooLargeError, boundedFetch } from './bounded-fetch.js';

/** Why agentctl would not send, or read on, a request of a remote agent: the run's failure says it. */
export class RemoteRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The fetch of a remote A2A agent at `url`: each request carries `headers`, and only to the origin
 * of `url`. The card says where messages go, and a card (or a redirect) could name any address:
 * with headers (a token) such a request is refused, since the token would go with it. Without
 * headers there is nothing to give away, and the card is followed as A2A says. A response that is
 * not an event stream is read up to `maxBytes`.
 */
export function a2aRemoteFetch(url: string, headers: Record<string, string>, maxBytes: number): typeof fetch {
  const guarded = Object.keys(headers).length > 0;
  const bounded = boundedFetch(maxBytes);
  return async (input, init = {}) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    checkEndpoint(url, headers, target.href);
    const response = await bounded(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init.headers)), ...headers },
      ...(guarded ? { redirect: 'manual' as const } : {}),
    });
    const location = response.headers.get('location');
    if (guarded && response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel().catch(() => undefined);
      throw new RemoteRefusal(
        `${target.href} answered with a redirect to ${new URL(location, target).href}, which agentctl does not follow with the agent's headers: put the address in its url`,
      );
    }
    return response;
  };
}

/**
 * Refuses the endpoint a card names when it is no absolute URL, or not on the origin of the
 * agent's `url` while the agent has `headers` to send: checked as the client is made, so `validate --connect` says it as a
 * run would, before any message goes out.
 */
export function checkEndpoint(url: string, headers: Record<string, string>, endpoint: string): void {
  const home = new URL(url).origin;
  let target: URL;
  try {
    target = new URL(endpoint);
  } catch {
    throw new RemoteRefusal(
      `its card names ${JSON.stringify(endpoint)} as its endpoint, which is no absolute URL`,
    );
  }
  if (Object.keys(headers).length > 0 && target.origin !== home)
    throw new RemoteRefusal(
      `its card names ${endpoint}, on another origin than its url; agentctl sends the agent's headers only to ${home}: put that address in its url if it is the agent's`,
    );
}

/** What agentctl refused in a remote agent's exchange, when `error` is or was caused by that (an SDK may wrap it). */
export function refusalIn(error: unknown): Error | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof RemoteRefusal || e instanceof BodyTooLargeError) return e;
  return undefined;
}
