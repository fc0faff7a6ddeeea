import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, REPO, removeTempDirs } from './support/cli.js';
import { processesInGroup, processesWith, processGroupOf } from './support/processes.js';
import { waitFor } from './support/wait-for.js';
import { probeProject, scriptedTurns } from './tools-safety/probe-project.js';

// An MCP server started through a wrapper (`sh -c`, `npx`, `npm exec`, `uv run`) is a grandchild
// of agentctl; one that keeps running after its stdin closes must still end with the run.

const SERVER = join(REPO, 'packages/mcp/test/fixtures/hostile.js');
const markers: string[] = [];

afterEach(() => {
  // A failed test must not leave its servers to the next ones.
  for (const marker of markers.splice(0))
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
});
afterAll(removeTempDirs);

async function wrappedProject(call: string): Promise<{ dir: string; marker: string }> {
  const marker = `agentctl-tree-${randomUUID()}`;
  markers.push(marker);
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(SERVER)} linger ${marker}; echo wrapper done >&2`;
  const dir = await probeProject({
    'agents/main.yaml': `${scriptedTurns('[{ toolset: wrapped }]', [`tool_calls: [${call}]`, 'text: done'])}---
kind: toolset
name: wrapped
mcp: { command: sh, args: [-c, ${JSON.stringify(command)}] }
timeout: 30s
`,
  });
  return { dir, marker };
}

function start(dir: string) {
  const child = spawn(process.execPath, [BIN, 'run', 'main', 'go'], {
    cwd: dir,
    env: cliEnv(),
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.resume();
  const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal });
    }),
  );
  return { child, exited, stderr: () => stderr };
}

describe('an MCP server behind a wrapper', () => {
  it('that outlives its stdin is ended with its wrapper when the run ends', async () => {
    const { dir, marker } = await wrappedProject('{ id: e, name: echo, arguments: { text: hi } }');
    const run = start(dir);
    let seen = 0;
    const groups = new Set<number>();
    const look = setInterval(() => {
      const pids = processesWith(marker);
      seen = Math.max(seen, pids.length);
      for (const pid of pids) groups.add(processGroupOf(pid) ?? 0);
    }, 20);
    const exit = await run.exited.finally(() => clearInterval(look));
    expect(exit.code, run.stderr()).toBe(0);
    // sh and the server were both seen running, so the check below can see them.
    expect(seen).toBe(2);
    await waitFor(() => processesWith(marker).length === 0, 'the server and its wrapper gone', 5000).catch(
      () => {},
    );
    expect(processesWith(marker)).toEqual([]);
    // Nothing else of their group is left either (the watcher that would end it if agentctl died).
    groups.delete(0);
    expect(groups.size).toBe(1);
    for (const group of groups) expect(processesInGroup(group)).toEqual([]);
  });

  it('is ended when agentctl is stopped by SIGTERM in the middle of a call', async () => {
    const { dir, marker } = await wrappedProject('{ id: h, name: hang, arguments: {} }');
    const run = start(dir);
    await waitFor(() => run.stderr().includes('hang'), 'the call of hang', 30_000);
    expect(processesWith(marker)).toHaveLength(2);
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    // `run` cancels on SIGTERM as on Ctrl-C, and exits as a shell reports that signal.
    expect(exit.code, run.stderr()).toBe(143);
    await waitFor(() => processesWith(marker).length === 0, 'the server and its wrapper gone', 5000).catch(
      () => {},
    );
    expect(processesWith(marker)).toEqual([]);
  });

  it('is ended when agentctl itself is killed by SIGKILL from outside, in the middle of a call', async () => {
    // No code of agentctl runs on SIGKILL: only the kernel closing agentctl's end of a pipe tells.
    const marker = `agentctl-tree-${randomUUID()}`;
    markers.push(marker);
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: direct }]', ['tool_calls: [{ id: h, name: hang, arguments: {} }]', 'text: done'])}---
kind: toolset
name: direct
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, linger, ${marker}] }
`,
    });
    const run = start(dir);
    await waitFor(() => run.stderr().includes('hang'), 'the call of hang', 30_000);
    const [server] = processesWith(marker);
    expect(processesWith(marker)).toEqual([server]);
    const group = processGroupOf(server as number) as number;
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    await waitFor(() => processesInGroup(group).length === 0, 'the server gone', 5000).catch(() => {});
    expect(processesWith(marker)).toEqual([]);
    expect(processesInGroup(group)).toEqual([]);
  });

  it('is ended when the watchdog kills agentctl (SIGKILL) for a tool that never yields', async () => {
    const marker = `agentctl-tree-${randomUUID()}`;
    markers.push(marker);
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(SERVER)} linger ${marker}; echo wrapper done >&2`;
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: wrapped }, spin]', [
        'tool_calls: [{ id: e, name: echo, arguments: { text: hi } }]',
        'tool_calls: [{ id: s, name: spin, arguments: {} }]',
        'text: done',
      ])}---
kind: toolset
name: wrapped
mcp: { command: sh, args: [-c, ${JSON.stringify(command)}] }
---
kind: tool
name: spin
module: { path: ../tools/spin.js }
timeout: 1s
`,
      'tools/spin.js': `export default { name: 'spin', description: 'loops', execute: () => { for (;;) {} } };\n`,
    });
    const run = start(dir);
    let seen = 0;
    const look = setInterval(() => {
      seen = Math.max(seen, processesWith(marker).length);
    }, 20);
    const exit = await run.exited.finally(() => clearInterval(look));
    // No handler of agentctl ran: it died of SIGKILL, sent by its own watchdog.
    expect(exit.signal, run.stderr()).toBe('SIGKILL');
    expect(run.stderr()).toContain('agentctl: tool `spin` is past its 1 s timeout');
    expect(seen).toBe(2);
    await waitFor(() => processesWith(marker).length === 0, 'the server and its wrapper gone', 5000).catch(
      () => {},
    );
    expect(processesWith(marker)).toEqual([]);
  });

  it('that started a helper in a session of its own (as a browser is started) has it ended with the run', async () => {
    const marker = `agentctl-tree-${randomUUID()}`;
    markers.push(marker);
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: detaching }]', ['tool_calls: [{ id: e, name: echo, arguments: { text: hi } }]', 'text: done'])}---
kind: toolset
name: detaching
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, detach, ${marker}] }
`,
    });
    const run = start(dir);
    let seen = 0;
    const sessions = new Set<number>();
    const look = setInterval(() => {
      const pids = processesWith(marker);
      seen = Math.max(seen, pids.length);
      for (const pid of pids) sessions.add(processGroupOf(pid) ?? 0);
    }, 20);
    const exit = await run.exited.finally(() => clearInterval(look));
    expect(exit.code, run.stderr()).toBe(0);
    // The server and its helper were both seen, in two process groups.
    expect(seen).toBe(2);
    sessions.delete(0);
    expect(sessions.size).toBe(2);
    expect(processesWith(marker)).toEqual([]);
  });

  it('that started a helper in a session of its own has it ended when agentctl is killed by SIGKILL mid-call', async () => {
    const marker = `agentctl-tree-${randomUUID()}`;
    markers.push(marker);
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: detaching }]', ['tool_calls: [{ id: h, name: hang, arguments: {} }]', 'text: done'])}---
kind: toolset
name: detaching
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, detach, ${marker}] }
`,
    });
    const run = start(dir);
    await waitFor(() => run.stderr().includes('hang'), 'the call of hang', 30_000);
    // The server and its helper, in two process groups.
    const pids = processesWith(marker);
    expect(pids).toHaveLength(2);
    expect(new Set(pids.map(processGroupOf)).size).toBe(2);
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    await waitFor(() => processesWith(marker).length === 0, 'the server and its helper gone', 5000).catch(
      () => {},
    );
    expect(processesWith(marker)).toEqual([]);
  });

  it('that started a helper in a session of its own has it ended when the process exits without closing the server', async () => {
    // What `run` does when its close budget runs out before a server that outlives its stdin has
    // closed: the process exits, and its exit handlers kill the server's group, watcher included.
    const marker = `agentctl-tree-${randomUUID()}`;
    markers.push(marker);
    const script = `
      import { createMcpToolset } from ${JSON.stringify(join(REPO, 'packages/mcp/dist/index.js'))};
      await createMcpToolset(
        { name: 'detaching', mcp: { command: process.execPath, args: [${JSON.stringify(SERVER)}, 'detach-linger', ${JSON.stringify(marker)}] } },
        { root: process.cwd() },
      );
      process.stdout.write('ready\\n');
      process.stdin.once('data', () => process.exit(0));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = new Promise((resolve) => child.on('close', resolve));
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    await waitFor(() => stdout.includes('ready'), 'the toolset started', 30_000);
    // The server and its helper (the script holds the marker too).
    await waitFor(
      () => processesWith(marker).filter((pid) => pid !== child.pid).length === 2,
      'the helper started',
    );
    child.stdin.write('exit\n');
    expect(await code, stderr).toBe(0);
    await waitFor(() => processesWith(marker).length === 0, 'the server and its helper gone', 5000).catch(
      () => {},
    );
    expect(processesWith(marker)).toEqual([]);
  });

  it('is ended when agentctl gets Ctrl-C while the server is still starting', async () => {
    const marker = `agentctl-tree-${randomUUID()}`;
    markers.push(marker);
    const silent = join(REPO, 'packages/mcp/test/fixtures/silent.js');
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(silent)} /dev/null ${marker}; true`;
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: slow }]', ['text: done'])}---
kind: toolset
name: slow
mcp: { command: sh, args: [-c, ${JSON.stringify(command)}] }
`,
    });
    const run = start(dir);
    // The server never answers the handshake: agentctl is still compiling the project.
    await waitFor(() => processesWith(marker).length === 2, 'the server and its wrapper started', 30_000);
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.signal ?? exit.code).toBe('SIGINT');
    await waitFor(() => processesWith(marker).length === 0, 'the server and its wrapper gone', 5000).catch(
      () => {},
    );
    expect(processesWith(marker)).toEqual([]);
  });
});
