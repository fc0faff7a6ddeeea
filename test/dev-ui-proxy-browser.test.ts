import { writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, warnNoChromium } from './support/browser.js';
import { removeTempDirs, tempProject } from './support/cli.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';

// The dev UI behind a reverse proxy that serves agentctl under a path: the BUILT `agentctl serve
// --ui --public-url`, the built page, in Chromium.
const WAIT = { timeout: 20_000 };
const PROJECT = 'kind: project\nname: proxied\n';
const ECHO = 'kind: agent\nname: echo\ndescription: Says it back\nmodel: offline/echo\ninstruction: hi\n';

interface Proxy {
  /** Its origin: `${origin}${prefix}` is where clients reach the server under `prefix`. */
  origin: string;
  /** The server each path prefix leads to. */
  targets: Map<string, string>;
  /** The paths of the requests it passed on. */
  seen: string[];
  close(): Promise<void>;
}

// A reverse proxy on loopback as nginx is set up by default: it serves a server under each of its
// prefixes (and nothing else), strips the prefix, and sends the upstream's own Host.
async function startProxy(): Promise<Proxy> {
  const seen: string[] = [];
  const targets = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const prefix = [...targets.keys()].find((p) => url.startsWith(`${p}/`));
    if (prefix === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    const upstream = new URL(targets.get(prefix)!);
    const path = url.slice(prefix.length);
    seen.push(`${req.method} ${path}`);
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `agentctl serve --ui ARGS` on a project of its own, served by `proxy` under `prefix`.
async function serveUnder(proxy: Proxy, prefix: string, args: string[], env: Record<string, string> = {}) {
  const root = await tempProject(
    { 'agentctl.yaml': PROJECT, 'agents/echo.yaml': ECHO },
    'agentctl-ui-proxy-',
  );
  const serve = await startLongRunning(
    root,
    ['serve', '--ui', '--port', '0', ...args],
    { AGENTCTL_UI_DIR: undefined, ...env },
    /ui: (http:\/\/\S+)\n/,
  );
  running.push(serve);
  proxy.targets.set(prefix, /listening on (http:\/\/\S+)\n/.exec(serve.match.input)![1]);
  return { root, serve, url: `${proxy.origin}${prefix}` };
}

const running: LongRunning[] = [];
let browser: Browser;
let proxy: Proxy;

warnNoChromium();

describe.skipIf(!HAS_CHROMIUM)('the dev UI behind a proxy that serves agentctl under a path', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    proxy = await startProxy();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all(running.splice(0).map((serve) => serve.stop('SIGKILL')));
    await proxy?.close();
    await removeTempDirs();
  });

  it('prints the public address of the page, and the page signs in, shows the project, chats and lists sessions', async () => {
    const { serve, url } = await serveUnder(proxy, '/team', ['--public-url', `${proxy.origin}/team/`], {
      AGENTCTL_SERVE_TOKEN: 'proxied-secret',
    });
    expect(serve.match[1]).toBe(`${url}/ui/?token=proxied-secret`);
    const page = await browser.newPage();
    try {
      await page.goto(serve.match[1]);
      // Signed in, the token gone from the address, still under the proxy's path.
      expect(page.url()).toBe(`${url}/ui/`);
      await page.locator('[data-agent="echo"]').waitFor(WAIT);
      await page.locator('.status-badge.ok').waitFor(WAIT);
      await page.goto(`${url}/ui/#view=chat&agent=echo`);
      await page.locator('.chat-form textarea').fill('through the proxy');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe('through the proxy');
      await page.locator('[data-nav="sessions"]').click();
      await page.locator('.session-item').first().waitFor(WAIT);
      // Every request of the page went through the proxy's path to agentctl.
      for (const path of [
        'GET /project',
        'GET /project/status',
        'GET /project/events',
        'POST /agents/echo/runs',
        'GET /sessions',
      ])
        expect(proxy.seen.filter((seen) => seen.split('?')[0] === path)).not.toEqual([]);
      // `/ui` without its slash finds the page under the path too.
      await page.goto(`${url}/ui`);
      expect(page.url()).toBe(`${url}/ui/`);
      await page.locator('[data-agent="echo"]').waitFor(WAIT);
    } finally {
      await page.close();
    }
  });

  it('keeps the tabs of two servers under two paths of one origin apart: each follows its own', async () => {
    const a = await serveUnder(proxy, '/a', ['--watch']);
    const b = await serveUnder(proxy, '/b', ['--watch']);
    // One browser, as a person has: the tabs share what an origin shares (locks, channels).
    const context = await browser.newContext();
    try {
      const pageA = await context.newPage();
      await pageA.goto(`${a.url}/ui/`);
      await pageA.locator('.status-badge.ok').waitFor(WAIT);
      const pageB = await context.newPage();
      await pageB.goto(`${b.url}/ui/`);
      await pageB.locator('.status-badge.ok').waitFor(WAIT);
      // A broken save of A is A's: its tab says so.
      await writeFile(join(a.root, 'agents/echo.yaml'), `${ECHO}tools: nope\n`);
      await pageA.locator('.status-badge.broken').waitFor(WAIT);
      // B's tab follows B: its next generation reaches it, and it never showed A's broken save.
      await writeFile(join(b.root, 'agents/echo.yaml'), ECHO.replace('Says it back', 'Says it again'));
      await pageB.locator('.status-badge', { hasText: 'generation 2' }).waitFor(WAIT);
      expect(await pageB.locator('.status-badge').getAttribute('class')).toContain('ok');
      await pageB.locator('[data-agent="echo"] .description', { hasText: 'Says it again' }).waitFor(WAIT);
    } finally {
      await context.close();
    }
  });
});
