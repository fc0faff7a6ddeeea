import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  /** Where clients reach agentctl through it, the path included. */
  url: string;
  /** The server it passes requests on to. */
  target: string;
  /** The paths of the requests it passed on. */
  seen: string[];
  close(): Promise<void>;
}

// A reverse proxy on loopback as nginx is set up by default: it serves agentctl under `prefix` (and
// nothing else), strips it, and sends the upstream's own Host.
async function startProxy(prefix: string): Promise<Proxy> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    const upstream = new URL(proxy.target);
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
  const proxy: Proxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`,
    target: '',
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}

let browser: Browser;
let proxy: Proxy;
let serve: LongRunning;

warnNoChromium();

describe.skipIf(!HAS_CHROMIUM)('the dev UI behind a proxy that serves agentctl under a path', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    proxy = await startProxy('/team');
    const root = await tempProject(
      { 'agentctl.yaml': PROJECT, 'agents/echo.yaml': ECHO },
      'agentctl-ui-proxy-',
    );
    serve = await startLongRunning(
      root,
      ['serve', '--ui', '--port', '0', '--public-url', `${proxy.url}/`],
      { AGENTCTL_UI_DIR: undefined, AGENTCTL_SERVE_TOKEN: 'proxied-secret' },
      /ui: (http:\/\/\S+)\n/,
    );
    const listening = /listening on (http:\/\/\S+)\n/.exec(serve.match.input)?.[1];
    proxy.target = listening!;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop('SIGKILL');
    await proxy?.close();
    await removeTempDirs();
  });

  it('prints the public address of the page, and the page signs in, shows the project, chats and lists sessions', async () => {
    expect(serve.match[1]).toBe(`${proxy.url}/ui/?token=proxied-secret`);
    const page = await browser.newPage();
    try {
      await page.goto(serve.match[1]);
      // Signed in, the token gone from the address, still under the proxy's path.
      expect(page.url()).toBe(`${proxy.url}/ui/`);
      await page.locator('[data-agent="echo"]').waitFor(WAIT);
      await page.locator('.status-badge.ok').waitFor(WAIT);
      await page.goto(`${proxy.url}/ui/#view=chat&agent=echo`);
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
      await page.goto(`${proxy.url}/ui`);
      expect(page.url()).toBe(`${proxy.url}/ui/`);
      await page.locator('[data-agent="echo"]').waitFor(WAIT);
    } finally {
      await page.close();
    }
  });
});
