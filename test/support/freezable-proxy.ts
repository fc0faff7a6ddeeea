import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 that can stop passing a server's answers on, as a frozen server or a dead link does. */
export interface FreezableProxy {
  port: number;
  /** From now on what the server sends is held back (connections stay open, nothing is refused). */
  freeze(): void;
  /** Passes on what was held back, and everything after it. */
  thaw(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:targetPort` on a free loopback port. */
export async function startFreezableProxy(targetPort: number): Promise<FreezableProxy> {
  let frozen = false;
  const held: Array<{ to: Socket; chunk: Buffer }> = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (frozen) held.push({ to: client, chunk });
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
