import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgent } from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait-for.js';
import { createMcpToolset, type McpToolset } from '../src/index.js';
import {
  ENDLESS_EVENT_BYTES,
  filesystem,
  gone,
  leftoverChildren,
  startHttpServer,
  type TestHttpServer,
} from './support/servers.js';

const open: McpToolset[] = [];
afterEach(async () => {
  for (const set of open.splice(0)) {
    const pid = set.pid;
    await set.dispose();
    if (pid) expect(await gone(pid)).toBe(true);
  }
});

const ctx = () => ({
  callId: 'c',
  signal: new AbortController().signal,
  messages: [],
  endInvocation: () => {},
});

describe('server-filesystem on a temporary folder', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-mcp-fs-')));
    await writeFile(path.join(folder, 'hello.txt'), 'hello from the test');
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('an agent lists the folder and reads the file through the MCP server', async () => {
    const set = await createMcpToolset(
      { name: 'fs', mcp: filesystem(folder), include: ['list_directory', 'read_text_file'], prefix: 'fs_' },
      { root: folder },
    );
    open.push(set);
    expect(set.tools.map((t) => t.name).sort()).toEqual(['fs_list_directory', 'fs_read_text_file']);
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'fs_list_directory', arguments: { path: folder }, id: 'ls' },
          { name: 'fs_read_text_file', arguments: { path: path.join(folder, 'hello.txt') }, id: 'cat' },
          { name: 'fs_read_text_file', arguments: { path: '/etc/hostname' }, id: 'out' },
        ],
      },
      { text: 'read it' },
    ]);
    const result = await createAgent({ name: 'reader', provider: model, tools: set.tools }).run(
      'read hello.txt',
    );
    const byId = Object.fromEntries(result.toolCalls.map((c) => [c.id, c]));
    expect(JSON.stringify(byId.ls.result)).toMatch(/\[FILE\] hello\.txt/);
    expect(byId.cat.isError).toBe(false);
    expect(JSON.stringify(byId.cat.result)).toContain('hello from the test');
    // The server refuses paths outside its folder; the refusal is a tool error for the model.
    expect(byId.out.isError).toBe(true);
    expect(String(byId.out.result)).toMatch(/denied|outside/i);
    expect(result.text).toBe('read it');
  });
});

describe('an MCP server over streamable HTTP on 127.0.0.1', () => {
  let server: TestHttpServer;
  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends the headers, lists tools, maps structured results and error results in a run', async () => {
    const set = await createMcpToolset(
      { name: 'remote', mcp: { url: server.url, headers: { authorization: 'Bearer t0ken' } } },
      { root: process.cwd() },
    );
    open.push(set);
    expect(set.pid).toBeUndefined();
    expect(set.serverInfo).toMatchObject({ name: 'test-http', version: '1.2.3' });
    expect(server.authHeaders.length).toBeGreaterThan(0);
    expect(new Set(server.authHeaders)).toEqual(new Set(['Bearer t0ken']));
    const lookup = set.tools.find((t) => t.name === 'lookup');
    // The schema reaches the model as the server wrote it, dialect marker included.
    expect(lookup?.parameters).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Oslo'] }, detail: { type: 'boolean' } },
      required: ['city'],
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'lookup', arguments: { city: 'Oslo' }, id: 'l' },
          { name: 'lookup', arguments: { city: 'Rome' }, id: 'bad' },
          { name: 'fail', arguments: {}, id: 'f' },
        ],
      },
      { text: 'Oslo has 710000 people' },
    ]);
    const result = await createAgent({ name: 'remote-user', provider: model, tools: set.tools }).run('Oslo?');
    const byId = Object.fromEntries(result.toolCalls.map((c) => [c.id, c]));
    expect(byId.l.result).toEqual({ city: 'Oslo', population: 710_000 });
    expect(byId.bad.isError).toBe(true);
    expect(String(byId.bad.result)).toMatch(/Invalid arguments for lookup/);
    expect(byId.f.isError).toBe(true);
    expect(String(byId.f.result)).toBe('Tool fail failed: the backend is down');
    const toolMessage = result.messages.find((m) => m.toolCallId === 'l');
    expect(JSON.parse(toolMessage?.content ?? '')).toEqual({ city: 'Oslo', population: 710_000 });
  });

  it("a call failing at the HTTP level (a proxy's 502, an answer over 10 MB) fails alone, naming the toolset", async () => {
    const set = await createMcpToolset({ name: 'remote', mcp: { url: server.url } }, { root: process.cwd() });
    open.push(set);
    const call = (name: string) =>
      set.tools
        .find((t) => t.name === name)
        ?.execute({}, ctx())
        .then(
          (result) => ({ result }),
          (error: Error) => ({ error: error.message }),
        );
    // `patient` answers only after the other two did: it is under way while they fail.
    const [patient, gateway, huge] = await Promise.all([call('patient'), call('gateway'), call('huge')]);
    expect(patient).toEqual({ result: 'patient done' });
    expect(gateway).toEqual({
      error: `MCP server of toolset "remote" (${server.url}) failed the call of gateway with HTTP 502: Streamable HTTP error: Error POSTing to endpoint: HTML page: 502 Bad Gateway`,
    });
    expect(huge).toEqual({
      error:
        'MCP server of toolset "remote" answered the call of huge, but its answer was larger than 10 MB, the most agentctl reads of one MCP answer',
    });
    expect(set.restarts).toBe(0);
  });

  it('an answer streamed past 10 MB ends its connection with that reason; the next call connects again', async () => {
    const own = await startHttpServer(0, { stream: true });
    try {
      const set = await createMcpToolset({ name: 'streamy', mcp: { url: own.url } }, { root: process.cwd() });
      open.push(set);
      const tool = (name: string) => set.tools.find((t) => t.name === name);
      await expect(tool('huge')?.execute({}, ctx())).rejects.toThrow(
        'MCP server of toolset "streamy" was stopped during the call: its answer was larger than 10 MB, the most agentctl reads of one MCP answer, so agentctl closed the connection',
      );
      const next = await tool('lookup')?.execute({ city: 'Oslo' }, ctx());
      expect(next).toContain('"population":710000');
    } finally {
      await own.close();
    }
  });

  it('does not follow a redirect to another origin: the start fails naming the address, and no header went there', async () => {
    // A server on another origin (another port) that sends every request on to the real one.
    const redirector = createServer((req, res) => {
      res.writeHead(307, { location: server.url }).end();
      req.resume();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/mcp`;
    try {
      const failure = await createMcpToolset(
        { name: 'moved', mcp: { url, headers: { 'x-api-key': 'k3y-for-mcp' } } },
        { root: process.cwd() },
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toContain(
        `MCP server of toolset "moved" (${url}) did not start: it answered HTTP 307: Streamable HTTP error: Error POSTing to endpoint: Redirect to ${server.url} not followed`,
      );
      expect(server.apiKeys).not.toContain('k3y-for-mcp');
    } finally {
      await new Promise((closed) => redirector.close(closed));
    }
  });

  it('cuts a notification stream whose one event passes 10 MB, and its calls go on', async () => {
    const own = await startHttpServer(0, { endlessNotifications: true });
    try {
      const set = await createMcpToolset({ name: 'chatty', mcp: { url: own.url } }, { root: process.cwd() });
      open.push(set);
      await waitFor(() => own.notificationStreams.length > 0, 'the notification stream cut');
      expect(own.notificationStreams[0]).toBeLessThan(ENDLESS_EVENT_BYTES);
      const lookup = set.tools.find((t) => t.name === 'lookup');
      expect(await lookup?.execute({ city: 'Paris' }, ctx())).toEqual({
        city: 'Paris',
        population: 2_100_000,
      });
    } finally {
      await own.close();
    }
  });

  it('a connection closed mid-call fails that call naming the toolset, the address and what failed; the next call connects again', async () => {
    const set = await createMcpToolset(
      { name: 'dropping', mcp: { url: server.url } },
      { root: process.cwd() },
    );
    open.push(set);
    const tool = (name: string) => set.tools.find((t) => t.name === name);
    await expect(tool('drop')?.execute({}, ctx())).rejects.toThrow(
      `MCP server of toolset "dropping" (${server.url}) could not be reached during the call of drop: fetch failed: other side closed; it is connected to again on the next call`,
    );
    const next = await tool('lookup')?.execute({ city: 'Oslo' }, ctx());
    expect(next).toMatch(
      /^\[MCP server of toolset "dropping" was connected to again before this call: fetch failed: other side closed\]/,
    );
    expect(next).toContain('"population":710000');
  });

  it('a call that times out or is cancelled closes its request, even when the server ignores the cancellation', async () => {
    for (const stream of [false, true]) {
      const own = await startHttpServer(0, { stream });
      try {
        const set = await createMcpToolset(
          { name: 'stubborn', mcp: { url: own.url }, timeout: 300 },
          { root: process.cwd() },
        );
        open.push(set);
        const hang = set.tools.find((t) => t.name === 'hang');
        await expect(hang?.execute({}, ctx())).rejects.toThrow(
          'MCP server of toolset "stubborn" did not answer the call of hang within 300 ms',
        );
        const aborted = new AbortController();
        const call = hang?.execute({}, { ...ctx(), signal: aborted.signal });
        await waitFor(() => own.openPosts() === 1, 'the second call under way');
        aborted.abort(new Error('stop'));
        await expect(call).rejects.toThrow();
        await waitFor(() => own.openPosts() === 0, 'no request left open', 2000).catch(() => {});
        expect(own.openPosts(), stream ? 'streamed answers' : 'JSON answers').toBe(0);
      } finally {
        await own.close();
      }
    }
  });

  it('reconnects after the server went away and came back', async () => {
    const own = await startHttpServer();
    const port = Number(new URL(own.url).port);
    const set = await createMcpToolset({ name: 'flaky', mcp: { url: own.url } }, { root: process.cwd() });
    open.push(set);
    const lookup = set.tools.find((t) => t.name === 'lookup');
    expect(await lookup?.execute({ city: 'Paris' }, ctx())).toEqual({ city: 'Paris', population: 2_100_000 });
    await own.close();
    await expect(lookup?.execute({ city: 'Paris' }, ctx())).rejects.toThrow();
    const back = await startHttpServer(port);
    try {
      const again = await lookup?.execute({ city: 'Paris' }, ctx());
      // Nothing of a remote server was restarted: agentctl connected to it again.
      expect(again).toMatch(/^\[MCP server of toolset "flaky" was connected to again before this call: /);
      expect(again).toContain('"population":2100000');
      expect(set.restarts).toBe(1);
    } finally {
      await back.close();
    }
  });
});

afterAll(async () => {
  expect(await leftoverChildren()).toEqual([]);
});
