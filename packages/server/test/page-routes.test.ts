import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSource } from '../src/agent-source.js';
import { listen, rawGet, stopAll } from './support/listen.js';

// A page folder as esbuild makes it; `secret.txt` sits beside it, outside.
const PAGE = fileURLToPath(new URL('./fixtures/page', import.meta.url));
const source: AgentSource = {
  list: () => [{ name: 'echo' }],
  lease: () => undefined,
  stores: async () => [],
};

afterEach(stopAll);

describe('the page at /ui', () => {
  it('serves index.html at /ui/ (and redirects /ui there), revalidated on every load', async () => {
    const url = await listen({ source, pageDir: PAGE });
    const bare = await fetch(`${url}/ui`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    // Relative, so that it holds under a proxy's path too.
    expect(bare.headers.get('location')).toBe('ui/');
    expect(new URL(bare.headers.get('location')!, `${url}/ui`).href).toBe(`${url}/ui/`);
    await bare.body?.cancel();
    const index = await fetch(`${url}/ui/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    // Its own script, stylesheet and API only: no inline script, handler or style runs.
    expect(index.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(await index.text()).toBe(await readFile(`${PAGE}/index.html`, 'utf8'));
    const byName = await fetch(`${url}/ui/index.html`);
    expect(byName.headers.get('cache-control')).toBe('no-cache');
    await byName.text();
  });

  it('serves hashed assets with their content type, cached for good', async () => {
    const url = await listen({ source, pageDir: PAGE });
    const script = await fetch(`${url}/ui/assets/app-7F3KQ2ZB.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await script.text()).toContain('dataset.loaded');
    const style = await fetch(`${url}/ui/assets/app-3XK9QZ2M.css`);
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await style.text()).toContain('margin');
    const manifest = await fetch(`${url}/ui/manifest.json`);
    expect(manifest.headers.get('content-type')).toMatch(/^application\/json/);
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    expect(await manifest.json()).toEqual({ name: 'fixture' });
  });

  it('answers 404 for a file that is not there, and for a folder without index.html', async () => {
    const url = await listen({ source, pageDir: PAGE });
    for (const path of ['/ui/nope.js', '/ui/assets/', '/ui/assets/app-7F3KQ2ZB.js.map']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('never serves a file outside the page folder, however the path is written', async () => {
    const url = await listen({ source, pageDir: PAGE });
    const attempts = [
      '/ui/../secret.txt',
      '/ui/assets/../../secret.txt',
      '/ui/%2e%2e/secret.txt',
      '/ui/..%2fsecret.txt',
      '/ui/..%5csecret.txt',
      '/ui/%252e%252e/secret.txt',
      '/ui//etc/passwd',
      '/ui/..\\secret.txt',
      '/ui/%2e%2e%2f%2e%2e%2fpackage.json',
    ];
    for (const path of attempts) {
      const response = await rawGet(url, path);
      expect(response.body, path).not.toContain('not for the page');
      expect(response.body, path).not.toContain('root:');
      // Node's parser refuses a raw backslash outright; everything else is an unknown file.
      expect(response.status, path).toBe(path.includes('\\') ? 400 : 404);
    }
  });

  it('is not there without a page folder: /ui is an unknown route', async () => {
    const url = await listen({ source });
    const response = await fetch(`${url}/ui/`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
