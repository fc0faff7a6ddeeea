import { afterEach, describe, expect, it } from 'vitest';
import { echoSource } from './support/echo-source.js';
import { listen, rawGet, stopAll } from './support/listen.js';

const source = echoSource();
// What a page on another site can send without asking first: a plain-text POST.
const simplePost = (headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'text/plain', ...headers },
  body: JSON.stringify({ input: 'hi', stream: false }),
});

afterEach(stopAll);

describe('requests from other web sites', () => {
  it('may not change state, tokens or not; same-origin, CORS-allowed and Origin-less clients may', async () => {
    const url = await listen({ source, corsOrigins: ['https://app.example'] });
    const foreign = await fetch(`${url}/agents/echo/runs`, simplePost({ origin: 'https://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect(await source.store.list()).toEqual([]);
    const allowed = await fetch(`${url}/agents/echo/runs`, simplePost({ origin: 'https://app.example' }));
    expect(await allowed.json()).toMatchObject({ status: 'complete' });
    const own = await fetch(`${url}/agents/echo/runs`, simplePost({ origin: url }));
    expect(await own.json()).toMatchObject({ status: 'complete' });
    const cli = await fetch(`${url}/agents/echo/runs`, simplePost());
    expect(await cli.json()).toMatchObject({ status: 'complete' });
    // Reading is the browser's business (no CORS headers, no answer for the other site).
    expect((await fetch(`${url}/agents`, { headers: { origin: 'https://evil.example' } })).status).toBe(200);
  });

  it('without tokens (localOnly), answers only requests addressed to a loopback name', async () => {
    const url = await listen({ source, localOnly: true });
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const port = new URL(url).port;
      const response = await rawGet(url, '/agents', { host: `${host}:${port}` });
      expect(response.status, host).toBe(200);
    }
    // A name rebound to 127.0.0.1 by its owner's DNS.
    const rebound = await rawGet(url, '/agents', { host: 'evil.example:80' });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: 'forbidden' } });
    expect((await rawGet(url, '/health', { host: 'evil.example' })).status).toBe(403);
  });
});
