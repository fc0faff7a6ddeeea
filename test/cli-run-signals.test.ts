import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, removeTempDirs, tempProject } from './support/cli.js';
import { processesInGroup, processesWith, processGroupOf } from './support/processes.js';
import { waitFor } from './support/wait-for.js';

// A command tool runs in a process group of its own (so a model's command cannot signal agentctl's
// group): a signal that kills agentctl does not reach it. SIGTERM and SIGHUP must stop it as
// Ctrl-C does, and leave a session that says the run was stopped.

const markers: string[] = [];
afterEach(() => {
  for (const marker of markers.splice(0))
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
});
afterAll(removeTempDirs);

async function project(): Promise<{ dir: string; marker: string }> {
  const marker = `agentctl-signal-${randomUUID()}`;
  markers.push(marker);
  const dir = await tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/main.yaml': `kind: agent
name: main
model: scripted
tools: [wait]
---
kind: tool
name: wait
description: waits a minute
command: { argv: [${JSON.stringify(process.execPath)}, -e, "setInterval(() => {}, 1000)", ${marker}] }
needs_approval: false
---
kind: model
name: scripted
provider: offline
model: script
script: [{ tool_calls: [{ id: w1, name: wait, arguments: {} }] }, { text: done }]
`,
    'tests/main.yaml': 'kind: test\nname: waits\nagent: main\nturns:\n  - user: go\n',
  });
  return { dir, marker };
}

function start(dir: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: cliEnv(), stdio: 'pipe' });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.resume();
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal });
    }),
  );
  return { child, exited, stderr: () => stderr };
}

type Stored = { type: string; status?: string; code?: string; message?: string };

describe.each([
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('`run` stopped by %s during a command tool', (signal, exitCode) => {
  it(`cancels the run, ends the command's process and exits ${exitCode}`, async () => {
    const { dir, marker } = await project();
    const run = start(dir, ['run', 'main', 'go', '--session', 's1']);
    await waitFor(() => processesWith(marker).length > 0, 'the command running', 15_000);
    run.child.kill(signal);
    const exit = await run.exited;
    expect(exit.code, run.stderr()).toBe(exitCode);
    expect(run.stderr()).toContain(`stopped by ${signal}`);
    // Killed before agentctl exits; the kernel may take a moment to show it gone.
    await waitFor(() => processesWith(marker).length === 0, 'the command gone', 10_000).catch(() => {});
    expect(processesWith(marker), run.stderr()).toEqual([]);
    const show = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    const events = (JSON.parse(show.stdout) as { session: { events: Stored[] } }).session.events;
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'ABORTED' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end' });
  });
});

describe('`agentctl test` killed by SIGTERM during a command tool', () => {
  it('ends the command with it', async () => {
    const { dir, marker } = await project();
    const test = start(dir, ['test']);
    await waitFor(() => processesWith(marker).length > 0, 'the command running', 15_000);
    test.child.kill('SIGTERM');
    const exit = await test.exited;
    expect(exit.signal ?? exit.code, test.stderr()).toBe('SIGTERM');
    await waitFor(() => processesWith(marker).length === 0, 'the command gone', 10_000).catch(() => {});
    expect(processesWith(marker), test.stderr()).toEqual([]);
  });
});

describe('`run` killed by SIGKILL during a command tool', () => {
  it('ends the command with it, though no code of agentctl runs on SIGKILL', async () => {
    const { dir, marker } = await project();
    const run = start(dir, ['run', 'main', 'go']);
    await waitFor(() => processesWith(marker).length > 0, 'the command running', 15_000);
    const [command] = processesWith(marker);
    const group = processGroupOf(command as number) as number;
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    await waitFor(() => processesInGroup(group).length === 0, 'the command gone', 10_000).catch(() => {});
    expect(processesWith(marker)).toEqual([]);
    expect(processesInGroup(group)).toEqual([]);
  });
});
