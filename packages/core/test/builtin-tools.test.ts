import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTIN_TOOLS,
  createAgent,
  currentTime,
  httpGet,
  isImageContent,
  listDir,
  readFile,
  type ToolContext,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const ctx = (): ToolContext => ({
  callId: 'c',
  signal: new AbortController().signal,
  messages: [],
  endInvocation: () => {},
});

describe('current_time', () => {
  const fixed = () => new Date('2026-07-01T12:34:56.000Z');

  it('gives UTC by default and the wall clock of an IANA zone with its offset', async () => {
    const tool = currentTime({ now: fixed });
    expect(tool.name).toBe('current_time');
    expect(await tool.execute({}, ctx())).toEqual({
      utc: '2026-07-01T12:34:56.000Z',
      timezone: 'UTC',
      local: '2026-07-01T12:34:56Z',
      weekday: 'Wednesday',
    });
    expect(await tool.execute({ timezone: 'Europe/Paris' }, ctx())).toMatchObject({
      local: '2026-07-01T14:34:56+02:00',
    });
    expect(await tool.execute({ timezone: 'America/New_York' }, ctx())).toMatchObject({
      local: '2026-07-01T08:34:56-04:00',
    });
    expect(await tool.execute({ timezone: 'Asia/Kolkata' }, ctx())).toMatchObject({
      local: '2026-07-01T18:04:56+05:30',
    });
  });

  it('refuses an unknown zone with a message the model can act on', async () => {
    await expect(currentTime().execute({ timezone: 'Mars/Olympus' }, ctx())).rejects.toThrow(
      /unknown time zone "Mars\/Olympus"/,
    );
  });

  it('the real clock is close to now', async () => {
    const { utc } = (await currentTime().execute({}, ctx())) as { utc: string };
    expect(Math.abs(Date.parse(utc) - Date.now())).toBeLessThan(60_000);
  });
});

describe('read_file and list_dir', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-builtin-')));
    root = path.join(base, 'allowed');
    outside = path.join(base, 'secret');
    await mkdir(path.join(root, 'sub'), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(root, 'notes.txt'), 'hello notes');
    await writeFile(path.join(root, 'sub', 'deep.txt'), 'deep');
    await writeFile(path.join(root, 'big.txt'), 'x'.repeat(5000));
    await writeFile(path.join(root, 'blob.bin'), Buffer.from([1, 0, 2, 3]));
    await writeFile(path.join(outside, 'password.txt'), 'hunter2');
    await symlink(path.join(outside, 'password.txt'), path.join(root, 'link-out.txt'));
    await symlink(outside, path.join(root, 'dir-out'));
    await symlink(path.join(root, 'notes.txt'), path.join(root, 'link-in.txt'));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('reads files inside the folder, following links that stay inside', async () => {
    const tool = readFile({ root });
    expect(await tool.execute({ path: 'notes.txt' }, ctx())).toBe('hello notes');
    expect(await tool.execute({ path: 'sub/../sub/deep.txt' }, ctx())).toBe('deep');
    expect(await tool.execute({ path: 'link-in.txt' }, ctx())).toBe('hello notes');
    expect(await tool.execute({ path: path.join(root, 'notes.txt') }, ctx())).toBe('hello notes');
  });

  it('refuses .. escapes, absolute paths elsewhere and links leading outside', async () => {
    const tool = readFile({ root });
    await expect(tool.execute({ path: '../secret/password.txt' }, ctx())).rejects.toThrow(
      /outside the allowed folder/,
    );
    await expect(tool.execute({ path: path.join(outside, 'password.txt') }, ctx())).rejects.toThrow(
      /outside/,
    );
    await expect(tool.execute({ path: 'link-out.txt' }, ctx())).rejects.toThrow(
      /leads outside the allowed folder/,
    );
    await expect(tool.execute({ path: 'dir-out/password.txt' }, ctx())).rejects.toThrow(/leads outside/);
    await expect(tool.execute({ path: 'missing.txt' }, ctx())).rejects.toThrow(/does not exist/);
    await expect(tool.execute({ path: 'sub' }, ctx())).rejects.toThrow(/not a regular file/);
  });

  it('caps what it reads and does not dump binary files', async () => {
    const text = (await readFile({ root, maxBytes: 100 }).execute({ path: 'big.txt' }, ctx())) as string;
    expect(text.startsWith('x'.repeat(100))).toBe(true);
    expect(text).not.toContain('x'.repeat(101));
    expect(text).toMatch(/truncated: the file has 5000 bytes; the first 100 are shown/);
    expect(await readFile({ root }).execute({ path: 'blob.bin' }, ctx())).toBe(
      '[binary file of 4 bytes not shown]',
    );
  });

  it('lists folders inside the folder only', async () => {
    const tool = listDir({ root });
    const listing = (await tool.execute({}, ctx())) as string;
    expect(listing.split('\n')).toEqual([
      'big.txt (5000 bytes)',
      'blob.bin (4 bytes)',
      'dir-out@',
      'link-in.txt@',
      'link-out.txt@',
      'notes.txt (11 bytes)',
      'sub/',
    ]);
    expect(await tool.execute({ path: 'sub' }, ctx())).toBe('deep.txt (4 bytes)');
    await expect(tool.execute({ path: '..' }, ctx())).rejects.toThrow(/outside the allowed folder/);
    await expect(tool.execute({ path: 'dir-out' }, ctx())).rejects.toThrow(/leads outside/);
    expect(await listDir({ root, maxEntries: 2 }).execute({}, ctx())).toBe(
      'big.txt (5000 bytes)\nblob.bin (4 bytes)\n[5 more entries not shown]',
    );
  });

  it('an agent gets an escape attempt back as a tool error and the file stays unread', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: '../secret/password.txt' }, id: 'bad' },
          { name: 'read_file', arguments: { path: 'notes.txt' }, id: 'good' },
        ],
      },
      { text: 'done' },
    ]);
    const result = await createAgent({ name: 'reader', provider: model, tools: [readFile({ root })] }).run(
      'read',
    );
    const [bad, good] = result.toolCalls;
    expect(bad.isError).toBe(true);
    expect(String(bad.result)).toMatch(/outside the allowed folder/);
    expect(JSON.stringify(result.messages)).not.toContain('hunter2');
    expect(good.result).toBe('hello notes');
  });
});

describe('http_get', () => {
  let server: Server;
  let other: Server;
  let base: string;
  let otherBase: string;
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );

  beforeAll(async () => {
    other = createServer((_req, res) => res.end('other host'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherBase = `http://localhost:${(other.address() as AddressInfo).port}`;
    server = createServer((req, res) => {
      if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('plain text');
      else if (req.url === '/big')
        res.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(100_000));
      else if (req.url === '/image') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else if (req.url === '/hop') res.writeHead(302, { location: '/text' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: `${otherBase}/` }).end();
      else if (req.url === '/port')
        res.writeHead(302, { location: otherBase.replace('localhost', '127.0.0.1') }).end();
      else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000);
      else res.writeHead(404).end('not here');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    other.closeAllConnections();
    await new Promise((r) => server.close(r));
    await new Promise((r) => other.close(r));
  });

  it('fetches from an allowed host, following redirects within it', async () => {
    const tool = httpGet({ allowedHosts: ['127.0.0.1'] });
    expect(await tool.execute({ url: `${base}/text` }, ctx())).toEqual({
      url: `${base}/text`,
      status: 200,
      contentType: 'text/plain',
      body: 'plain text',
    });
    expect(await tool.execute({ url: `${base}/hop` }, ctx())).toMatchObject({
      url: `${base}/text`,
      body: 'plain text',
    });
    expect(await tool.execute({ url: `${base}/nope` }, ctx())).toMatchObject({
      status: 404,
      body: 'not here',
    });
  });

  it('refuses hosts not allowed, other ports when one is pinned, and redirects to other hosts', async () => {
    const tool = httpGet({ allowedHosts: ['127.0.0.1', 'example.com'] });
    await expect(tool.execute({ url: `${otherBase}/` }, ctx())).rejects.toThrow(
      /host "localhost:\d+" is not allowed/,
    );
    await expect(tool.execute({ url: `${base}/away` }, ctx())).rejects.toThrow(/redirects to another host/);
    await expect(tool.execute({ url: 'file:///etc/passwd' }, ctx())).rejects.toThrow(/only http and https/);
    const pinned = httpGet({ allowedHosts: ['127.0.0.1:1'] });
    await expect(pinned.execute({ url: `${base}/text` }, ctx())).rejects.toThrow(/is not allowed/);
    // Another port of the same name: followed where allowed_hosts allows that port, not past a pin.
    expect(await tool.execute({ url: `${base}/port` }, ctx())).toMatchObject({ body: 'other host' });
    const pinnedHere = httpGet({ allowedHosts: [new URL(base).host] });
    await expect(pinnedHere.execute({ url: `${base}/port` }, ctx())).rejects.toThrow(/another port/);
    // A pinned port names the scheme's default too (the URL's host leaves it out), and only it.
    const defaultPort = httpGet({ allowedHosts: ['127.0.0.1:80'] });
    const reached = await defaultPort.execute({ url: 'http://127.0.0.1/text' }, ctx()).catch((e: Error) => e);
    expect(String(reached)).not.toMatch(/is not allowed/);
    await expect(defaultPort.execute({ url: 'https://127.0.0.1/text' }, ctx())).rejects.toThrow(
      /host "127\.0\.0\.1" is not allowed/,
    );
    await expect(httpGet().execute({ url: `${base}/text` }, ctx())).rejects.toThrow(
      /host "127\.0\.0\.1:\d+" is not allowed; allowed hosts: none/,
    );
    const wildcard = httpGet({ allowedHosts: ['*.example.org'] });
    await expect(wildcard.execute({ url: `${base}/text` }, ctx())).rejects.toThrow(/is not allowed/);
  });

  it('caps the body, returns images as images, and times out', async () => {
    const capped = await httpGet({ allowedHosts: ['127.0.0.1'], maxBytes: 1000 }).execute(
      { url: `${base}/big` },
      ctx(),
    );
    expect(capped).toMatchObject({ truncated: true });
    expect((capped as { body: string }).body).toBe('y'.repeat(1000));
    const image = await httpGet({ allowedHosts: ['127.0.0.1'] }).execute({ url: `${base}/image` }, ctx());
    expect(isImageContent(image)).toBe(true);
    expect(Buffer.from((image as { data: string }).data, 'base64').equals(png)).toBe(true);
    await expect(
      httpGet({ allowedHosts: ['127.0.0.1'], timeout: 100 }).execute({ url: `${base}/slow` }, ctx()),
    ).rejects.toThrow(/timeout|aborted/i);
  });
});

describe('BUILTIN_TOOLS', () => {
  it('makes every built-in by name', () => {
    expect(Object.keys(BUILTIN_TOOLS).sort()).toEqual([
      'current_time',
      'http_get',
      'list_dir',
      'read_file',
      'user_input',
    ]);
    expect(BUILTIN_TOOLS.read_file({ root: '.' }).name).toBe('read_file');
    expect(BUILTIN_TOOLS.http_get({ allowedHosts: [] }).name).toBe('http_get');
    expect(BUILTIN_TOOLS.list_dir({ root: '.' }).name).toBe('list_dir');
    expect(BUILTIN_TOOLS.current_time({}).name).toBe('current_time');
    expect(BUILTIN_TOOLS.user_input({}).name).toBe('user_input');
  });
});
