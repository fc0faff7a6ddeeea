import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, sendParams, userMessage } from './support/a2a-client.js';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// `agentctl serve` behind a reverse proxy: the A2A card's `url` must be where clients reach the
// agent (the proxy), not the address the server listens on, or every A2A client fails after the card.

interface Proxy {
  url: string;
  /** The server it passes requests on to. */
  target: string;
  /** The paths of the requests it passed on. */
  seen: string[];
  close(): Promise<void>;
}

// A reverse proxy on loopback as nginx is set up by default: it strips `prefix`, sends the
// upstream's own Host, and says what the client asked for in X-Forwarded-Proto/Host.
async function startProxy(prefix = ''): Promise<Proxy> {
  const seen: string[] = [];
  let own = '';
  const server: Server = createServer((req, res) => {
    const upstream = new URL(proxy.target);
    const path = (req.url ?? '/').slice(prefix.length) || '/';
    seen.push(`${req.method} ${path}`);
    const headers = {
      ...req.headers,
      host: upstream.host,
      'x-forwarded-proto': 'http',
      'x-forwarded-host': own,
    };
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const proxy: Proxy = {
    url: `http://${own}${prefix}`,
    target: '',
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  proxies.push(proxy);
  return proxy;
}

const cardOf = async (base: string, headers: Record<string, string> = {}) =>
  (await (await fetch(`${base}/a2a/echo/.well-known/agent-card.json`, { headers })).json()) as {
    url: string;
    supportedInterfaces: Array<{ url: string }>;
  };

function textOf(result: Message | Task): string {
  const message = 'status' in result ? result.status?.message : result;
  return (message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

let dir: string;
let plain: ServeProcess;
const proxies: Proxy[] = [];

beforeAll(async () => {
  dir = await fixtureProject('serve');
  plain = await startServe(dir);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await stopServers();
  await removeTempDirs();
});

describe('agentctl serve behind a reverse proxy: the A2A card', () => {
  it('names the listening address and ignores X-Forwarded-* without --trust-proxy', async () => {
    const card = await cardOf(plain.url, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example',
    });
    expect(card.url).toBe(`${plain.url}/a2a/echo`);
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
      `${plain.url}/a2a/echo`,
      `${plain.url}/a2a/echo`,
    ]);
  });

  it('with --public-url names that address, path included, and an A2A client reaches the agent through the proxy', async () => {
    const proxy = await startProxy('/team');
    const server = await startServe(dir, ['--public-url', `${proxy.url}/`]);
    proxy.target = server.url;
    const card = await cardOf(proxy.url);
    expect(card.url).toBe(`${proxy.url}/a2a/echo`);
    expect(card.supportedInterfaces[0]?.url).toBe(`${proxy.url}/a2a/echo`);
    // Asked directly, the card still names the public address: it is the operator's word.
    expect((await cardOf(server.url)).url).toBe(`${proxy.url}/a2a/echo`);
    const client = await a2aClient(proxy.url, 'echo');
    expect(textOf(await client.sendMessage(sendParams(userMessage('through the proxy'))))).toBe(
      'through the proxy',
    );
    expect(proxy.seen).toContain('POST /a2a/echo');
  });

  it('with --trust-proxy takes scheme and host from X-Forwarded-Proto and X-Forwarded-Host', async () => {
    const server = await startServe(dir, ['--trust-proxy']);
    const proxy = await startProxy();
    proxy.target = server.url;
    const card = await cardOf(proxy.url);
    expect(card.url).toBe(`${proxy.url}/a2a/echo`);
    const client = await a2aClient(proxy.url, 'echo');
    expect(textOf(await client.sendMessage(sendParams(userMessage('forwarded'))))).toBe('forwarded');
    expect(proxy.seen).toContain('POST /a2a/echo');
    // A TLS-terminating proxy says https; the first of a chain's values is the client's.
    const tls = await cardOf(server.url, {
      'x-forwarded-proto': 'https, http',
      'x-forwarded-host': 'agents.example.com, 10.0.0.2',
    });
    expect(tls.url).toBe('https://agents.example.com/a2a/echo');
    // A value that is no scheme or no host is passed over, not half trusted.
    const odd = await cardOf(server.url, {
      'x-forwarded-proto': 'gopher',
      'x-forwarded-host': 'evil.example/path',
    });
    expect(odd.url).toBe(`${server.url}/a2a/echo`);
  });

  it('refuses a --public-url that is not an http(s) base URL before listening (exit 2)', async () => {
    const result = await agentctl(['serve', '--port', '0', '--public-url', 'agents.example.com'], {
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--public-url: not a URL: "agents.example.com"');
    expect(result.stdout).not.toContain('listening on');
  });
});
