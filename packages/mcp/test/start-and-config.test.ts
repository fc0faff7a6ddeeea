import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWith } from '../../../test/support/processes.js';
import { waitFor } from '../../../test/support/wait-for.js';
import { createMcpToolset, McpStartError, mcpToolsetFactory } from '../src/index.js';
import { gone, leftoverChildren } from './support/servers.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const ctx = () => ({
  callId: 'c',
  signal: new AbortController().signal,
  messages: [],
  endInvocation: () => {},
});

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-mcp-start-')));
  await mkdir(path.join(root, 'work'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a server that does not start', () => {
  it('names a command that does not exist', async () => {
    const error = await createMcpToolset(
      { name: 'ghost', mcp: { command: 'agentctl-no-such-server', args: ['--x'] } },
      { root },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as McpStartError).message).toBe(
      'MCP server of toolset "ghost" (agentctl-no-such-server --x) did not start: command "agentctl-no-such-server" was not found',
    );
  });

  it('quotes the first stderr lines of a server that exits', async () => {
    const error = (await createMcpToolset(
      { name: 'broken', mcp: { command: process.execPath, args: [fixture('exits.js')] } },
      { root },
    ).catch((e: unknown) => e)) as McpStartError;
    expect(error).toBeInstanceOf(McpStartError);
    expect(error.toolset).toBe('broken');
    expect(error.target).toContain('exits.js');
    expect(error.message).toContain('the process exited before the MCP handshake');
    expect(error.stderr).toContain('fatal: missing API_TOKEN\nsee the docs for setup');
    expect(error.message).toContain('stderr:\n  fatal: missing API_TOKEN\n  see the docs for setup');
  });

  it('gives up on a server that never answers, and kills it', async () => {
    const pidFile = path.join(root, 'silent.pid');
    const error = (await createMcpToolset(
      {
        name: 'mute',
        mcp: { command: process.execPath, args: [fixture('silent.js'), pidFile] },
        startTimeout: 300,
      },
      { root },
    ).catch((e: unknown) => e)) as McpStartError;
    expect(error).toBeInstanceOf(McpStartError);
    expect(error.message).toContain('no answer to the MCP handshake within 300 ms');
    expect(error.message).toContain('warming up forever');
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(await gone(pid)).toBe(true);
  });

  it('gives up on a server that never lists its tools within the start timeout, and kills it', async () => {
    const error = (await createMcpToolset(
      {
        name: 'listless',
        mcp: { command: process.execPath, args: [fixture('hostile.js'), 'list-hang'] },
        startTimeout: 3000,
      },
      { root },
    ).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^MCP server of toolset "listless" \(.*hostile\.js list-hang\) did not list its tools within 3000 ms$/,
    );
    expect(await leftoverChildren()).toEqual([]);
  });

  it('says which server stopped while listing its tools, with its stderr', async () => {
    const error = (await createMcpToolset(
      { name: 'crashy', mcp: { command: process.execPath, args: [fixture('hostile.js'), 'list-crash'] } },
      { root },
    ).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^MCP server of toolset "crashy" \(.*hostile\.js list-crash\) stopped while listing its tools; its last stderr lines: panic: no tools config$/,
    );
  });

  it('names a server that offers no tools and refuses to list them', async () => {
    const error = await createMcpToolset(
      { name: 'prompts', mcp: { command: process.execPath, args: [fixture('prompts-only.js')] } },
      { root },
    ).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^MCP server of toolset "prompts" \(.*prompts-only\.js\) refused to list its tools: MCP error -32601: Method not found; it offers no tools \(its capabilities: prompts\)$/,
    );
  });

  it("quotes the title of a proxy's HTML error page, not the page", async () => {
    const proxy = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(
          `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${'x'.repeat(4000)}</body></html>`,
        );
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
    try {
      const error = await createMcpToolset({ name: 'behind', mcp: { url } }, { root }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpStartError);
      expect((error as Error).message).toBe(
        `MCP server of toolset "behind" (${url}) did not start: it answered HTTP 502: Streamable HTTP error: Error POSTing to endpoint: HTML page: 502 Bad Gateway`,
      );
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('a server refusing the handshake with 401 is named with the status and where credentials go', async () => {
    const guarded = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
        res.end('{"error":"invalid_token"}');
      });
    });
    await new Promise<void>((resolve) => guarded.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(guarded.address() as AddressInfo).port}/mcp`;
    try {
      const error = await createMcpToolset({ name: 'guarded', mcp: { url } }, { root }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpStartError);
      expect((error as Error).message).toBe(
        `MCP server of toolset "guarded" (${url}) did not start: it answered HTTP 401 (it wants credentials: send them with the toolset's mcp.headers, e.g. Authorization: Bearer \${TOKEN}): Streamable HTTP error: Error POSTing to endpoint: {"error":"invalid_token"}`,
      );
    } finally {
      guarded.closeAllConnections();
      await new Promise((resolve) => guarded.close(resolve));
    }
  });

  it('says when an HTTP server cannot be reached, and why', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const refused = await createMcpToolset(
      { name: 'nobody', mcp: { url: `http://127.0.0.1:${port}/mcp` } },
      { root },
    ).catch((e: unknown) => e);
    expect((refused as Error).message).toBe(
      `MCP server of toolset "nobody" (http://127.0.0.1:${port}/mcp) did not start: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('says when an HTTP server cannot be reached', async () => {
    const error = await createMcpToolset(
      { name: 'far', mcp: { url: 'http://127.0.0.1:1/mcp' } },
      { root },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as Error).message).toMatch(
      /^MCP server of toolset "far" \(http:\/\/127\.0\.0\.1:1\/mcp\) did not start/,
    );
  });
});

describe('a helper the server started outside its process group', () => {
  // The `detach` server starts a helper with `marker` on its command line, in a session of its own.
  async function detaching(name: string) {
    const marker = `agentctl-detached-${crypto.randomUUID()}`;
    const set = await createMcpToolset(
      { name, mcp: { command: process.execPath, args: [fixture('hostile.js'), 'detach', marker] } },
      { root },
    );
    // The server (the marker is its argument too) and the helper.
    await waitFor(() => processesWith(marker).length === 2, 'the server and its helper running');
    return { set, marker };
  }

  it('ends when the toolset is disposed', async () => {
    const { set, marker } = await detaching('detaching');
    try {
      await set.dispose();
      expect(processesWith(marker)).toEqual([]);
    } finally {
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    }
  });

  it('ends when the server exits on its own, while the toolset goes on', async () => {
    const { set, marker } = await detaching('crashing');
    try {
      await expect(set.tools.find((t) => t.name === 'crash')?.execute({}, ctx())).rejects.toThrow(
        /stopped during the call/,
      );
      await waitFor(() => processesWith(marker).length === 0, 'the helper gone', 2000).catch(() => {});
      expect(processesWith(marker)).toEqual([]);
    } finally {
      await set.dispose();
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('a tool with an outputSchema', () => {
  const load = (mode: string) =>
    createMcpToolset(
      { name: 'shaped', mcp: { command: process.execPath, args: [fixture('output-schemas.js'), mode] } },
      { root },
    );

  it('that is no valid JSON Schema fails the calls of that tool, not the toolset', async () => {
    const set = await load('bad');
    try {
      const tool = (name: string) => set.tools.find((t) => t.name === name);
      expect(await tool('good')?.execute({}, ctx())).toBe('good');
      await expect(tool('odd')?.execute({}, ctx())).rejects.toThrow(
        `MCP server of toolset "shaped" answered the call of odd with what its outputSchema does not allow: Structured content does not match the tool's output schema: the tool's outputSchema is not a valid JSON Schema (type must be JSONType or JSONType[]: nonsense), so no answer can be checked against it`,
      );
    } finally {
      await set.dispose();
    }
  });

  it('that an answer breaks fails that call, naming the toolset', async () => {
    const set = await load('mismatch');
    try {
      await expect(set.tools.find((t) => t.name === 'odd')?.execute({}, ctx())).rejects.toThrow(
        `MCP server of toolset "shaped" answered the call of odd with what its outputSchema does not allow: Structured content does not match the tool's output schema: data/a must be number`,
      );
    } finally {
      await set.dispose();
    }
  });
});

describe('process environment and working directory', () => {
  it('runs in cwd inside the project with only the declared environment', async () => {
    process.env.AGENTCTL_TEST_SECRET = 'do-not-leak';
    try {
      const set = await createMcpToolset(
        {
          name: 'env',
          mcp: {
            command: process.execPath,
            args: [fixture('env-cwd.js')],
            cwd: 'work',
            env: { GREETING: 'hi' },
          },
        },
        { root },
      );
      try {
        expect(set.tools.map((t) => t.name)).toEqual(['where', 'odd_name_x']);
        const seen = JSON.parse((await set.tools[0].execute({}, ctx())) as string);
        expect(seen).toEqual({ cwd: path.join(root, 'work'), greeting: 'hi', secret: null });
      } finally {
        const pid = set.pid as number;
        await set.dispose();
        expect(await gone(pid)).toBe(true);
      }
    } finally {
      delete process.env.AGENTCTL_TEST_SECRET;
    }
  });

  it('refuses a cwd outside the project folder', async () => {
    await expect(
      createMcpToolset({ name: 'esc', mcp: { command: process.execPath, cwd: '../..' } }, { root }),
    ).rejects.toThrow(/MCP toolset "esc": cwd "..\/.." is outside the project folder/);
  });

  it('prefixes names and makes them safe for providers', async () => {
    const set = await createMcpToolset(
      { name: 'pre', mcp: { command: process.execPath, args: [fixture('env-cwd.js')] }, prefix: 'a.b_' },
      { root },
    );
    await set.dispose();
    expect(set.tools.map((t) => t.name)).toEqual(['a_b_where', 'a_b_odd_name_x']);
  });

  it('refuses two tools that end up with the same name, and leaves no process', async () => {
    await expect(
      createMcpToolset(
        { name: 'dup', mcp: { command: process.execPath, args: [fixture('env-cwd.js'), 'dup'] } },
        { root },
      ),
    ).rejects.toThrow(
      'MCP toolset "dup": tools "odd.name/x" and "odd_name_x" both become "odd_name_x"; exclude one of them',
    );
    const excluded = await createMcpToolset(
      {
        name: 'dup',
        mcp: { command: process.execPath, args: [fixture('env-cwd.js'), 'dup'] },
        exclude: ['odd.*'],
      },
      { root },
    );
    const pid = excluded.pid as number;
    await excluded.dispose();
    expect(await gone(pid)).toBe(true);
    expect(excluded.tools.map((t) => t.name)).toEqual(['where', 'odd_name_x']);
  });
});

describe('mcpToolsetFactory', () => {
  it('needs exactly one of command or url', async () => {
    await expect(mcpToolsetFactory({ name: 'x', mcp: {} as never }, { root })).rejects.toThrow(
      'toolset "x": mcp needs exactly one of "command" (stdio) or "url" (streamable HTTP)',
    );
    await expect(
      mcpToolsetFactory({ name: 'x', mcp: { command: 'a', url: 'http://b' } as never }, { root }),
    ).rejects.toThrow(/exactly one/);
    await expect(mcpToolsetFactory({ name: 'x', mcp: { url: 'not a url' } }, { root })).rejects.toThrow(
      'toolset "x": mcp.url "not a url" is not a valid URL',
    );
  });

  it('approval patterns: the closest decides, whatever the order they are written in', async () => {
    const set = await mcpToolsetFactory(
      {
        name: 'ordered',
        mcp: { command: process.execPath, args: [fixture('named.js'), 'write_file', 'read_file'] },
        approval: { '*': 'never', 'write_*': 'always' },
      },
      { root },
    );
    try {
      expect(set.approvalModes).toEqual({ write_file: 'always', read_file: 'never' });
      expect(set.tools.map((t) => [t.name, t.needsApproval])).toEqual([
        ['write_file', true],
        ['read_file', false],
      ]);
    } finally {
      await set.dispose();
    }
  });

  it('takes the normalised toolset definition: timeout in ms, approval per tool, cwd relative to the file', async () => {
    const resolved: string[] = [];
    const set = await mcpToolsetFactory(
      {
        name: 'yaml',
        mcp: { command: process.execPath, args: [fixture('env-cwd.js')], cwd: './work' },
        prefix: 'y_',
        timeoutMs: 2000,
        approval: { y_where: 'once-per-session', '*': 'always' },
        description: 'from YAML',
      },
      {
        root,
        resolvePath: (written) => {
          resolved.push(written);
          return path.join(root, written);
        },
      },
    );
    try {
      expect(resolved).toEqual(['./work']);
      expect(set.approvalModes).toEqual({ y_where: 'once-per-session', y_odd_name_x: 'always' });
      // The loop's deadline is a second after the client's, which cancels the call naming the server.
      expect(set.tools.map((t) => [t.name, t.timeout, t.needsApproval])).toEqual([
        ['y_where', 3000, true],
        ['y_odd_name_x', 3000, true],
      ]);
      const seen = JSON.parse((await set.tools[0].execute({}, ctx())) as string);
      expect(seen.cwd).toBe(path.join(root, 'work'));
    } finally {
      await set.dispose();
    }
    // From code, a duration string is read by createMcpToolset; from YAML, config normalised it.
    await expect(
      createMcpToolset({ name: 'bad', mcp: { command: 'x' }, timeout: 'soon' }, { root }),
    ).rejects.toThrow('toolset "bad": timeout: "soon" is not a duration (use e.g. 500ms, 30s, 2m, 1h)');
  });

  it('returns a lazy toolset that has not started anything', async () => {
    const set = await mcpToolsetFactory(
      { name: 'later', mcp: { command: 'agentctl-no-such-server' }, lazy: true },
      { root },
    );
    expect(set.tools).toEqual([]);
    await expect(set.load()).rejects.toBeInstanceOf(McpStartError);
    await set.dispose();
  });
});

afterAll(async () => {
  expect(await leftoverChildren()).toEqual([]);
});

describe('a server that describes a tool at great length', () => {
  it('gives the model the first 8,192 characters and a note of how long it was', async () => {
    const toolset = await createMcpToolset(
      { name: 'wordy', mcp: { command: process.execPath, args: [fixture('hostile.js'), 'wordy'] } },
      { root },
    );
    try {
      const echo = toolset.tools.find((tool) => tool.name === 'echo');
      const said = 'Echoes its text. '.repeat(120_000);
      expect(echo?.description).toBe(
        `${said.slice(0, 8192)} [cut by agentctl: the server's description of this tool has ${said.length} characters]`,
      );
      // The other tools keep their own words.
      expect(toolset.tools.find((tool) => tool.name === 'hang')?.description).toBe('Never answers');
    } finally {
      await toolset.dispose();
    }
  });
});
