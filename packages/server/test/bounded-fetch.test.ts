import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLargeError, boundedFetch } from '../src/bounded-fetch.js';

// A loopback server answering each path with `size` bytes, as the path says how.
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const [, kind = '', size = '0'] = (req.url ?? '').split('/');
    const body = 'x'.repeat(Number(size));
    if (kind === 'declared') res.writeHead(200, { 'content-length': body.length });
    else if (kind === 'stream') res.writeHead(200, { 'content-type': 'text/event-stream' });
    else if (kind === 'failed-stream') res.writeHead(500, { 'content-type': 'text/event-stream' });
    else res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('boundedFetch', () => {
  const bounded = boundedFetch(1000);

  it('reads a body up to the limit, and fails one past it as it reads', async () => {
    expect(await (await bounded(`${base}/chunked/1000`)).text()).toHaveLength(1000);
    const error = await (await bounded(`${base}/chunked/5000`)).text().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
  });

  it('refuses a body whose declared length is past the limit before reading it', async () => {
    await expect(bounded(`${base}/declared/5000`)).rejects.toThrow(
      'its response passed 1,000 bytes, the most agentctl reads of one that is not an event stream',
    );
  });

  it('leaves a successful event stream alone, and bounds a failed one like any body', async () => {
    expect(await (await bounded(`${base}/stream/5000`)).text()).toHaveLength(5000);
    await expect((await bounded(`${base}/failed-stream/5000`)).text()).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
  });
});
