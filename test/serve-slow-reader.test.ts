import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempProject } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';

// A client that asks for a streamed run and never reads, against the real `agentctl serve`: the
// server must not hold the run's events for it. The scripted model answers each of 8 model calls
// with 1 MB of text (1,000 words of 1,000 letters, one text_delta each) and a tool call: 8 MB in
// all, beyond what the kernel's socket buffers absorb and far beyond the 64 KiB the server is
// allowed to hold for one connection here.
const WORDS = `${'a'.repeat(999)} `.repeat(1000);
const LIMIT = 65_536;
const PROJECT = {
  'agentctl.yaml': 'kind: project\n',
  'scripts/talk.yaml': `- fallback: true\n  text: "${WORDS}"\n  tool_calls: [{ name: noop, arguments: {} }]\n`,
  'tools/noop.js': "export default { name: 'noop', description: 'does nothing', execute: () => 'ok' };\n",
  'agents/talker.yaml': `kind: agent
name: talker
description: Talks at length, eight times.
model: loud
limits: { max_iterations: 8 }
tools: [noop]
---
kind: model
name: loud
provider: offline
model: script
script: ../scripts/talk.yaml
---
kind: tool
name: noop
description: does nothing
module: { path: ../tools/noop.js }
`,
};

let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(await tempProject(PROJECT), ['--max-stream-buffer', String(LIMIT)]);
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const CUT = 'closed the connection of a client that stopped reading';

/** Sends one POST on a raw socket and does not read what comes back. */
function postUnread(path: string, body: unknown): Socket {
  const { port } = new URL(server.url);
  const text = JSON.stringify(body);
  const socket = connect(Number(port), '127.0.0.1', () => {
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  });
  socket.on('error', () => undefined);
  socket.pause();
  return socket;
}

/** Reads what the socket still has, once the server has cut it, until it closes. */
function drain(socket: Socket): Promise<string> {
  let received = '';
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(received));
    socket.resume();
  });
}

const cuts = () => server.stderr().split(CUT).length - 1;

describe('agentctl serve: a streaming client that does not read', () => {
  it('native SSE: the server resets the connection past --max-stream-buffer; the stored run goes on to its end', async () => {
    const before = cuts();
    const sessionId = `slow-${Date.now()}`;
    const socket = postUnread('/agents/talker/runs', { input: 'talk', sessionId });
    await waitFor(() => cuts() > before, 'the server cutting the connection');
    const line = server
      .stderr()
      .split('\n')
      .findLast((l) => l.includes(CUT))!;
    expect(line).toContain('POST /agents/talker/runs');
    // What waited when it was cut is what the run wrote since the socket filled up, not the run
    // (its stream is some 17 MB): the verdict comes when the server next turns to its sockets.
    const held = Number(/: (\d+) bytes waited/.exec(line)![1]);
    expect(held).toBeGreaterThan(LIMIT);
    expect(held).toBeLessThan(8 * 1024 * 1024);
    // The client finds its connection gone before the end of the run's stream.
    const received = await drain(socket);
    expect(received).toContain('event: run_start');
    expect(received).not.toContain('event: run_end');
    // A stored session's run does not stop for its client (as when a client hangs up): it ends
    // in its session as it would have, at the agent's limit.
    let session: { events: Array<{ type: string; code?: string }> } | undefined;
    for (let i = 0; i < 200; i++) {
      const response = await fetch(`${server.url}/sessions/${sessionId}`);
      session = response.ok ? await response.json() : undefined;
      if (session?.events.at(-1)?.type === 'run_end') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(session?.events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
    expect(session?.events.find((e) => e.type === 'error')?.code).toBe('MAX_ITERATIONS_EXCEEDED');
    expect(session!.events.filter((e) => e.type === 'tool_result')).toHaveLength(8);
  });

  it('a reader that reads gets the whole run, far more than the limit', async () => {
    const before = cuts();
    const response = await fetch(`${server.url}/agents/talker/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'talk' }),
    });
    const text = await response.text();
    expect(text.length).toBeGreaterThan(50 * LIMIT);
    expect(text).toContain('event: run_end');
    expect(cuts()).toBe(before);
  });

  it('the OpenAI-compatible stream: cut like the native one', async () => {
    const before = cuts();
    const socket = postUnread('/v1/chat/completions', {
      model: 'talker',
      stream: true,
      messages: [{ role: 'user', content: 'talk' }],
    });
    await waitFor(() => cuts() > before, 'the server cutting the connection');
    expect(await drain(socket)).not.toContain('[DONE]');
  });

  it('A2A message/stream: cut like the native one; the task runs on to its end', async () => {
    const before = cuts();
    const socket = postUnread('/a2a/talker', {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/stream',
      params: {
        message: {
          kind: 'message',
          messageId: 'm-slow',
          role: 'user',
          parts: [{ kind: 'text', text: 'talk' }],
        },
      },
    });
    await waitFor(() => cuts() > before, 'the server cutting the connection');
    const received = await drain(socket);
    const taskId = /"taskId":"([^"]+)"|"id":"([0-9a-f-]{36})"/.exec(received);
    expect(taskId).not.toBeNull();
    const id = taskId![1] ?? taskId![2];
    let state = '';
    for (let i = 0; i < 200 && (state === '' || state === 'working'); i++) {
      const answer = await fetch(`${server.url}/a2a/talker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id } }),
      });
      state = (await answer.json()).result?.status?.state ?? '';
      if (state === 'working') await new Promise((r) => setTimeout(r, 50));
    }
    expect(state).toBe('failed');
  });
});
