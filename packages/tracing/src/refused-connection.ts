import { connect } from 'node:net';

/**
 * Aborts, with the error as its reason, when a TCP connection to the host and port of `url` is
 * refused: nothing listens there. The OTLP exporter retries a refused connection with backoff
 * until its timeout; one connection of its own tells at once. A connection made is closed at once,
 * and nothing here holds the process open.
 */
export function refusedConnection(url: string): AbortSignal {
  const refused = new AbortController();
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return refused.signal;
  }
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  // The URL keeps an IPv6 host in brackets; a socket takes it without.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = connect({ host, port });
  socket.unref();
  socket.once('connect', () => socket.destroy());
  socket.once('error', (error: NodeJS.ErrnoException) => {
    socket.destroy();
    if (isRefusal(error)) refused.abort(error);
  });
  return refused.signal;
}

// Node tries each address of a name in turn: refused on all of them is an AggregateError of refusals.
function isRefusal(error: NodeJS.ErrnoException): boolean {
  if (error.code === 'ECONNREFUSED') return true;
  const all = (error as unknown as { errors?: NodeJS.ErrnoException[] }).errors;
  return Array.isArray(all) && all.length > 0 && all.every((e) => e.code === 'ECONNREFUSED');
}
