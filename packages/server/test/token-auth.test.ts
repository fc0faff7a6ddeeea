import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { echoSource } from './support/echo-source.js';
import { listen, stopAll } from './support/listen.js';

const PAGE = fileURLToPath(new URL('./fixtures/page', import.meta.url));
const TOKEN = 's3cret/token';
const source = echoSource();
const run = (headers: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ input: 'hi', stream: false }),
});

afterEach(stopAll);

// The cookie the sign-in set, as a browser would send it back.
async function signIn(url: string): Promise<string> {
  const response = await fetch(`${url}/ui/?token=${encodeURIComponent(TOKEN)}`, { redirect: 'manual' });
  expect(response.status).toBe(302);
  // The token leaves the address: back to the same page without it, relative (behind a proxy that
  // serves the server under a path, the path the server sees is not the browser's).
  expect(response.headers.get('location')).toBe('./');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^agentctl_token=s3cret%2Ftoken; /);
  expect(cookie).toMatch(/; Path=\//);
  expect(cookie).toMatch(/; HttpOnly/);
  expect(cookie).toMatch(/; SameSite=Strict/);
  expect(cookie).not.toMatch(/Secure/);
  await response.body?.cancel();
  return cookie.split(';')[0];
}

describe('the page behind tokens', () => {
  it('signs a browser in with ?token=, and the cookie then opens the page and the API', async () => {
    const url = await listen({ source, tokens: [TOKEN], pageDir: PAGE });
    const cookie = await signIn(url);
    const page = await fetch(`${url}/ui/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('fixture page');
    const project = await fetch(`${url}/agents`, { headers: { cookie } });
    expect(await project.json()).toEqual({ agents: [{ name: 'echo' }] });
    // Other query parameters stay; only the token goes.
    const deep = await fetch(`${url}/ui/index.html?view=graph&token=${encodeURIComponent(TOKEN)}`, {
      redirect: 'manual',
    });
    expect(deep.headers.get('location')).toBe('index.html?view=graph');
    await deep.body?.cancel();
  });

  it('shows a small HTML page saying how to get in, to a browser without a good token', async () => {
    const url = await listen({ source, tokens: [TOKEN], pageDir: PAGE });
    for (const path of ['/ui/', '/ui/assets/app-7F3KQ2ZB.js', '/ui/?token=wrong', '/ui']) {
      const response = await fetch(`${url}${path}`, {
        redirect: 'manual',
        headers: { cookie: 'agentctl_token=wrong' },
      });
      expect(response.status, path).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const text = await response.text();
      expect(text).toContain('agentctl dev --ui');
      expect(text).toContain('/ui/?token=');
      expect(text).not.toContain('wrong');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    // The API still answers JSON, and a token in the query opens nothing but the page's sign-in.
    const api = await fetch(`${url}/agents?token=${encodeURIComponent(TOKEN)}`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('refuses a cookie-authenticated POST or DELETE from another origin, or with no Origin', async () => {
    const url = await listen({ source, tokens: [TOKEN], pageDir: PAGE });
    const cookie = await signIn(url);
    const foreign = await fetch(`${url}/agents/echo/runs`, run({ cookie, origin: 'http://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'forbidden' } });
    const bare = await fetch(`${url}/agents/echo/runs`, run({ cookie }));
    expect(bare.status).toBe(403);
    await bare.text();
    const removal = await fetch(`${url}/sessions/nope`, {
      method: 'DELETE',
      headers: { cookie, origin: 'null' },
    });
    expect(removal.status).toBe(403);
    await removal.text();
    // From the page itself: same origin.
    const own = await fetch(`${url}/agents/echo/runs`, run({ cookie, origin: url }));
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ status: 'complete', output: 'hi' });
    // A bearer token is not a browser's ambient credential: no Origin needed.
    const bearer = await fetch(`${url}/agents/echo/runs`, run({ authorization: `Bearer ${TOKEN}` }));
    expect(await bearer.json()).toMatchObject({ status: 'complete' });
  });

  it('is open with no tokens configured, page and API alike (other sites still may not change state)', async () => {
    const url = await listen({ source, pageDir: PAGE });
    expect((await fetch(`${url}/ui/`)).status).toBe(200);
    const fromPage = await fetch(`${url}/agents/echo/runs`, run({ origin: url }));
    expect(await fromPage.json()).toMatchObject({ status: 'complete' });
    const fromCurl = await fetch(`${url}/agents/echo/runs`, run({}));
    expect(await fromCurl.json()).toMatchObject({ status: 'complete' });
    const elsewhere = await fetch(`${url}/agents/echo/runs`, run({ origin: 'http://elsewhere.example' }));
    expect(elsewhere.status).toBe(403);
    await elsewhere.text();
  });
});
