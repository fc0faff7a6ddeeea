import { type AgentEvent, createAgent, isImageContent, offline } from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMcpToolset, type McpProgress, type McpRestart, type McpToolset } from '../src/index.js';
import { everything, gone, leftoverChildren } from './support/servers.js';

const root = process.cwd();
const open: McpToolset[] = [];
const pids: number[] = [];

async function toolset(extra: Partial<Parameters<typeof createMcpToolset>[0]> = {}, hooks = {}) {
  const set = await createMcpToolset({ name: 'every', mcp: everything, ...extra }, { root, ...hooks });
  open.push(set);
  if (set.pid) pids.push(set.pid);
  return set;
}

function tool(set: McpToolset, name: string) {
  const found = set.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name} in ${set.tools.map((t) => t.name).join(', ')}`);
  return found;
}

const ctx = (signal = new AbortController().signal) => ({
  callId: 'c1',
  signal,
  messages: [],
  endInvocation: () => {},
});

afterEach(async () => {
  for (const set of open.splice(0)) await set.dispose();
  for (const pid of pids.splice(0)) expect(await gone(pid)).toBe(true);
});

describe('server-everything over stdio', () => {
  it('lists the tools with their JSON Schemas, filtered and prefixed', async () => {
    const all = await toolset();
    expect(all.serverInfo?.name).toBe('mcp-servers/everything');
    const sum = tool(all, 'get-sum');
    expect(sum.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(sum.description).toBe('Returns the sum of two numbers');

    const some = await toolset({
      include: ['get-*', 'echo'],
      exclude: ['get-env', 'get-resource-*'],
      prefix: 'ev_',
    });
    expect(some.tools.map((t) => t.name).sort()).toEqual([
      'ev_echo',
      'ev_get-annotated-message',
      'ev_get-structured-content',
      'ev_get-sum',
      'ev_get-tiny-image',
    ]);
  });

  it('maps text, structured content, images and errors', async () => {
    const set = await toolset();
    expect(await tool(set, 'echo').execute({ message: 'hi there' }, ctx())).toBe('Echo: hi there');
    expect(await tool(set, 'get-sum').execute({ a: 2, b: 40 }, ctx())).toBe('The sum of 2 and 40 is 42.');
    expect(await tool(set, 'get-structured-content').execute({ location: 'Chicago' }, ctx())).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    const image = await tool(set, 'get-tiny-image').execute({}, ctx());
    expect(isImageContent(image)).toBe(true);
    expect(image).toMatchObject({ mediaType: 'image/png' });
    expect((image as { text: string }).text).toContain("Here's the image you requested:");
    expect(
      Buffer.from((image as { data: string }).data, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    await expect(tool(set, 'get-sum').execute({ a: 1, b: 'x' }, ctx())).rejects.toThrow(/expected number/);
  });

  it('reports progress of a long-running tool', async () => {
    const progress: McpProgress[] = [];
    const set = await toolset({}, { onProgress: (p: McpProgress) => progress.push(p) });
    const result = await tool(set, 'trigger-long-running-operation').execute(
      { duration: 0.3, steps: 3 },
      ctx(),
    );
    expect(result).toContain('Long running operation completed');
    // The SDK drops a notification that arrives with the final answer, so the last step may be missing.
    expect(progress.map((p) => [p.progress, p.total]).slice(0, 2)).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(progress[0]).toMatchObject({
      toolset: 'every',
      tool: 'trigger-long-running-operation',
      callId: 'c1',
    });
  });

  it('cancels a call on abort and on the toolset timeout, and the server keeps serving', async () => {
    const set = await toolset({ timeout: 200 });
    const slow = tool(set, 'trigger-long-running-operation');
    await expect(slow.execute({ duration: 5, steps: 5 }, ctx())).rejects.toThrow(
      /did not answer the call of trigger-long-running-operation within 200 ms/,
    );
    const controller = new AbortController();
    const call = slow.execute({ duration: 5, steps: 5 }, ctx(controller.signal));
    setTimeout(() => controller.abort(new Error('user cancelled')), 50);
    await expect(call).rejects.toThrow(/user cancelled/);
    expect(await tool(set, 'echo').execute({ message: 'still here' }, ctx())).toBe('Echo: still here');
  });

  it('restarts a server killed between calls and says so', async () => {
    const restarts: McpRestart[] = [];
    const set = await toolset({}, { onRestart: (r: McpRestart) => restarts.push(r) });
    const first = set.pid as number;
    process.kill(first, 'SIGKILL');
    expect(await gone(first)).toBe(true);
    const result = await tool(set, 'echo').execute({ message: 'again' }, ctx());
    expect(result).toMatch(/was restarted before this call/);
    expect(result).toMatch(/Echo: again$/);
    expect(set.pid).toBeDefined();
    expect(set.pid).not.toBe(first);
    pids.push(set.pid as number);
    expect(set.restarts).toBe(1);
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toMatchObject({ toolset: 'every', restarts: 1 });
    // Only the first call after the restart carries the note.
    expect(await tool(set, 'echo').execute({ message: 'once more' }, ctx())).toBe('Echo: once more');
  });

  it('a lazy toolset starts its server only on load()', async () => {
    const set = await toolset({ lazy: true });
    expect(set.pid).toBeUndefined();
    expect(set.tools).toEqual([]);
    const [first] = await Promise.all([set.load(), set.load()]);
    expect(first.length).toBeGreaterThan(5);
    expect(set.tools).toBe(first);
    pids.push(set.pid as number);
  });

  it('dispose() ends the child process', async () => {
    const set = await createMcpToolset({ name: 'every', mcp: everything }, { root });
    const pid = set.pid as number;
    expect(pid).toBeGreaterThan(0);
    await set.dispose();
    expect(await gone(pid)).toBe(true);
    await expect(tool(set, 'echo').execute({ message: 'x' }, ctx())).rejects.toThrow(/was disposed/);
  });
});

describe('an agent calling MCP tools', () => {
  it('runs scripted calls through the loop: text, image and invalid arguments', async () => {
    const set = await toolset({ include: ['echo', 'get-sum', 'get-tiny-image'], prefix: 'ev_' });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'ev_echo', arguments: { message: 'ping' }, id: 'e1' },
          { name: 'ev_get-sum', arguments: { a: 3, b: 4 }, id: 's1' },
          { name: 'ev_get-tiny-image', arguments: {}, id: 'i1' },
          { name: 'ev_get-sum', arguments: { a: 1 }, id: 's2' },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createAgent({ name: 'mcp-user', provider: model, tools: set.tools });
    const events: AgentEvent[] = [];
    const result = await agent.run('use the tools', { onEvent: (e) => events.push(e) });
    expect(result.status).toBe('complete');
    expect(result.text).toBe('done');
    const byId = Object.fromEntries(result.toolCalls.map((c) => [c.id, c]));
    expect(byId.e1.result).toBe('Echo: ping');
    expect(byId.s1.result).toBe('The sum of 3 and 4 is 7.');
    expect(isImageContent(byId.i1.result)).toBe(true);
    // The loop validates arguments against the server's schema before calling it.
    expect(byId.s2.isError).toBe(true);
    expect(String(byId.s2.result)).toMatch(/Invalid arguments for ev_get-sum/);
    const imageMessage = result.messages.find((m) => m.role === 'tool' && m.toolCallId === 'i1');
    expect(imageMessage?.image?.mediaType).toBe('image/png');
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.find((e) => e.callId === 'i1')).toMatchObject({ hasImage: true });
  });

  it('a server error result reaches the model as a tool error', async () => {
    const set = await toolset({ include: ['get-sum'] });
    // Bypass the loop's own validation by widening the schema, so the server itself refuses.
    const sum = { ...tool(set, 'get-sum'), parameters: { type: 'object' } };
    const model = scriptedModel([
      { toolCalls: [{ name: 'get-sum', arguments: { a: 'one', b: 2 } }] },
      { text: 'ok' },
    ]);
    const result = await createAgent({ name: 'err', provider: model, tools: [sum] }).run('sum');
    expect(result.toolCalls[0].isError).toBe(true);
    expect(String(result.toolCalls[0].result)).toMatch(/Tool get-sum failed: .*Input validation error/);
  });

  it('the offline auto model calls each MCP tool once from its schema', async () => {
    const set = await toolset({ include: ['echo', 'get-sum', 'get-structured-content'] });
    const result = await createAgent({ name: 'auto', provider: offline('auto'), tools: set.tools }).run('go');
    expect(result.toolCalls.map((c) => c.name).sort()).toEqual(['echo', 'get-structured-content', 'get-sum']);
    expect(result.toolCalls.every((c) => !c.isError)).toBe(true);
    expect(result.text).toMatch(/Called 3 tool\(s\)/);
    expect(result.text).toMatch(/echo: Echo: /);
  });

  it('approval "always" pauses the run before the server is called', async () => {
    const set = await toolset({ include: ['echo'], approval: 'always' });
    expect(set.approvalModes).toEqual({ echo: 'always' });
    const model = scriptedModel([{ toolCalls: [{ name: 'echo', arguments: { message: 'x' } }] }]);
    const result = await createAgent({ name: 'ask', provider: model, tools: set.tools }).run('echo');
    expect(result.status).toBe('paused');
    expect(result.pending?.[0].call.name).toBe('echo');
  });
});

afterAll(async () => {
  expect(await leftoverChildren()).toEqual([]);
});
