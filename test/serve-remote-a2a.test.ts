import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, parseNdjson, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// `type: a2a` agents reach the `echo` agent of a second, real `agentctl serve` process.
let remote: ServeProcess;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  remote = await startServe(await fixtureProject('serve'), [], { AGENTCTL_SERVE_TOKEN: 'remote-secret' });
  dir = await fixtureProject('remote');
  env = { REMOTE_URL: remote.url, REMOTE_TOKEN: 'remote-secret' };
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

describe('remote A2A agents (type: a2a)', () => {
  it('runs as the root agent: the remote answer is the output', async () => {
    const result = await agentctl(['run', 'remote_echo', 'straight to the remote'], { cwd: dir, env });
    expect(result.stderr).not.toContain('remote-secret');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('straight to the remote');
  });

  it('is a transfer target: its streamed text arrives under its branch', async () => {
    const result = await agentctl(['run', 'front', 'hello via transfer', '--json'], { cwd: dir, env });
    expect(result.code).toBe(0);
    const events = parseNdjson(result.stdout);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'transfer', from: 'front', to: 'remote_echo' }),
    );
    const deltas = events.filter((e) => e.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    for (const d of deltas) expect(d).toMatchObject({ branch: 'front.remote_echo', author: 'remote_echo' });
    expect(events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'complete',
      output: 'hello via transfer',
    });
    // The remote kept the conversation under the local session id (the A2A context).
    const sessionId = /session (\S+)/.exec(result.stderr)?.[1];
    const stored = await fetch(`${remote.url}/sessions/${sessionId}`, {
      headers: { authorization: 'Bearer remote-secret' },
    });
    expect(stored.status).toBe(200);
  });

  it('is an agent tool: the call returns the remote answer', async () => {
    const result = await agentctl(['run', 'asker', 'go', '--json'], { cwd: dir, env });
    expect(result.code).toBe(0);
    const events = parseNdjson(result.stdout);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      name: 'remote_echo',
      content: 'ping from a tool',
      isError: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', output: 'The remote agent answered.' });
  });

  it('sends the headers from ${VAR}: a wrong token fails the run with the remote status', async () => {
    const result = await agentctl(['run', 'remote_echo', 'hi'], {
      cwd: dir,
      env: { ...env, REMOTE_TOKEN: 'wrong' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PROVIDER_ERROR');
    expect(result.stderr).toContain('401');
    expect(result.stderr).not.toContain('wrong');
  });

  it('validate names a missing url and fields a remote agent cannot have', async () => {
    await writeFile(
      join(dir, 'agents/bad.yaml'),
      'kind: agent\nname: lost\ntype: a2a\nmodel: offline/echo\n---\nkind: agent\nname: local\nurl: http://x\n',
    );
    const result = await agentctl(['validate'], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('agents/bad.yaml:3:7: error: an a2a agent needs `url`');
    expect(result.stdout).toContain(
      'agents/bad.yaml:4:1: error: an a2a agent runs remotely and has no `model`',
    );
    expect(result.stdout).toContain('agents/bad.yaml:8:1: error: `url` is for remote agents (type: a2a)');
  });
});
