import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempDir } from './support/cli.js';
import { EVERYTHING, FILESYSTEM } from './support/mcp-servers.js';
import { processesWith } from './support/processes.js';

// Real MCP servers from npm, started by the real `agentctl run` over stdio: server-everything
// (tools with several schemas, an image, structured content, a long-running tool with progress)
// and server-filesystem confined to a temporary folder.

type Event = Record<string, unknown> & { type: string };

/** Processes whose command line names one of the server entry points. */
function serverProcesses(): number[] {
  return [...processesWith(EVERYTHING), ...processesWith(FILESYSTEM)];
}

/** The most server processes seen at once while `running` was pending (proves the check can see them). */
async function mostServersWhile(running: Promise<unknown>): Promise<number> {
  let done = false;
  void running.finally(() => {
    done = true;
  });
  let most = 0;
  while (!done) {
    most = Math.max(most, serverProcesses().length);
    await new Promise((r) => setTimeout(r, 25));
  }
  return most;
}

const yaml = (value: unknown) => JSON.stringify(value);

let project: string;
let data: string;

beforeAll(async () => {
  project = await tempDir('agentctl-mcp-');
  data = join(project, 'data');
  await mkdir(join(project, 'agents'), { recursive: true });
  await mkdir(data);
  await writeFile(join(data, 'hello.txt'), 'hello from the temp folder\n');
  await mkdir(join(data, 'secret'));
  await writeFile(join(data, 'secret', 'key.txt'), 'the secret key\n');
  await writeFile(join(project, 'agentctl.yaml'), 'kind: project\nname: mcp-e2e\n');
  const toolsets = `kind: toolset
name: everything
mcp: { command: ${yaml(process.execPath)}, args: [${yaml(EVERYTHING)}, stdio] }
include: [echo, get-sum, get-tiny-image, get-structured-content, trigger-long-running-operation]
prefix: ev_
timeout: 30s
---
kind: toolset
name: files
mcp: { command: ${yaml(process.execPath)}, args: [${yaml(FILESYSTEM)}, ${yaml(data)}] }
include: [list_directory, read_text_file]
prefix: fs_
---
kind: toolset
name: guarded
mcp: { command: ${yaml(process.execPath)}, args: [${yaml(EVERYTHING)}, stdio] }
include: [echo]
approval: always
`;
  const script = [
    {
      tool_calls: [
        { name: 'ev_echo', arguments: { message: 'hello mcp' }, id: 'echo' },
        { name: 'ev_get-sum', arguments: { a: 2, b: 40 }, id: 'sum' },
        { name: 'ev_get-tiny-image', arguments: {}, id: 'image' },
        { name: 'ev_get-structured-content', arguments: { location: 'Chicago' }, id: 'weather' },
        { name: 'ev_trigger-long-running-operation', arguments: { duration: 1, steps: 2 }, id: 'long' },
        { name: 'fs_list_directory', arguments: { path: data }, id: 'ls' },
        { name: 'fs_read_text_file', arguments: { path: join(data, 'hello.txt') }, id: 'cat' },
        { name: 'fs_read_text_file', arguments: { path: '/etc/hostname' }, id: 'escape' },
      ],
    },
    { text: 'all done' },
  ];
  // The same secret file spelled four ways past `data/secret/*`; the server resolves each.
  const fenceScript = [
    {
      tool_calls: [
        `${data}/secret/key.txt`,
        `${data}/notes/../secret/key.txt`,
        `${data}//secret/key.txt`,
        `${data}/./secret/key.txt`,
      ].map((path, i) => ({ name: 'fs_read_text_file', arguments: { path }, id: `s${i}` })),
    },
    { text: 'fenced' },
  ];
  const agents = `kind: agent
name: scripted
model: m
tools: [{ toolset: everything }, { toolset: files }]
limits: { tool_timeout: 30s }
---
kind: model
name: m
provider: offline
model: script
script: ${yaml(script)}
---
kind: agent
name: auto
model: offline/auto
tools: [{ toolset: files }]
---
kind: agent
name: asker
model: offline/auto
tools: [{ toolset: guarded }]
---
kind: agent
name: fenced
model: fence-script
tools: [{ toolset: files }]
approval:
  deny: [${yaml(`fs_read_text_file:path=${data}/secret/*`)}]
---
kind: model
name: fence-script
provider: offline
model: script
script: ${yaml(fenceScript)}
`;
  await writeFile(join(project, 'agents/toolsets.yaml'), toolsets);
  await writeFile(join(project, 'agents/agents.yaml'), agents);
});

afterAll(removeTempDirs);

const run = (args: string[]) => agentctl(['run', ...args, '--json'], { cwd: project, timeoutMs: 60_000 });
const resultOf = (events: Event[], callId: string) =>
  events.find((e) => e.type === 'tool_result' && e.callId === callId) as
    | (Event & { content: string; isError: boolean; hasImage?: boolean })
    | undefined;

describe('MCP toolsets through agentctl run', () => {
  it('a scripted agent calls server-everything and server-filesystem over stdio and gets their results', async () => {
    const running = run(['scripted', 'use the servers']);
    // Both servers run as children of agentctl while it works (the long-running tool keeps them up).
    expect(await mostServersWhile(running)).toBe(2);
    const { code, stdout, stderr } = await running;
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'all done' });
    expect(resultOf(events, 'echo')).toMatchObject({ content: 'Echo: hello mcp', isError: false });
    expect(resultOf(events, 'sum')).toMatchObject({ content: 'The sum of 2 and 40 is 42.', isError: false });
    expect(resultOf(events, 'image')).toMatchObject({ isError: false, hasImage: true });
    const weather = resultOf(events, 'weather');
    expect(weather?.isError).toBe(false);
    expect(JSON.parse(weather?.content ?? '{}')).toMatchObject({ temperature: expect.any(Number) });
    expect(resultOf(events, 'long')).toMatchObject({ isError: false });
    expect(resultOf(events, 'long')?.content).toMatch(/Long running operation completed/i);
    expect(resultOf(events, 'ls')?.content).toContain('[FILE] hello.txt');
    // read_text_file answers with structured content, which the model gets as JSON.
    expect(resultOf(events, 'cat')?.isError).toBe(false);
    expect(JSON.parse(resultOf(events, 'cat')?.content ?? '{}')).toEqual({
      content: 'hello from the temp folder\n',
    });
    // server-filesystem refuses a path outside its folder with an error result, not a crash.
    expect(resultOf(events, 'escape')).toMatchObject({ isError: true });
    expect(resultOf(events, 'escape')?.content).toMatch(/access denied|outside allowed/i);
    expect(serverProcesses()).toEqual([]);
  });

  it('an agent on offline/auto calls every tool of the filesystem server once', async () => {
    const { code, stdout, stderr } = await run(['auto', 'look around']);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.name).sort()).toEqual(['fs_list_directory', 'fs_read_text_file']);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(serverProcesses()).toEqual([]);
  });

  it('a deny rule on a path of an MCP tool denies it however it is spelled, as for a file tool', async () => {
    const { code, stdout, stderr } = await run(['fenced', 'read the key']);
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    for (const id of ['s0', 's1', 's2', 's3'])
      expect(resultOf(events, id), id).toMatchObject({
        isError: true,
        content: 'The call was not run: denied by the approval policy.',
      });
    expect(stdout).not.toContain('the secret key');
  });

  it('a toolset with `approval: always` pauses without a terminal, and --allow lets the call run', async () => {
    const paused = await run(['asker', 'echo something']);
    expect(paused.code, paused.stderr).toBe(0);
    const pausedEvents = parseNdjson(paused.stdout);
    expect(pausedEvents.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    expect(pausedEvents.find((e) => e.type === 'approval_required')).toMatchObject({
      pending: [{ call: { name: 'echo' }, kind: 'approval' }],
    });
    expect(pausedEvents.some((e) => e.type === 'tool_result')).toBe(false);

    const allowed = await run(['asker', 'echo something', '--allow', 'ech*']);
    expect(allowed.code, allowed.stderr).toBe(0);
    const events = parseNdjson(allowed.stdout);
    expect(events.some((e) => e.type === 'approval_required')).toBe(false);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ name: 'echo', isError: false });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(serverProcesses()).toEqual([]);
  });
});
