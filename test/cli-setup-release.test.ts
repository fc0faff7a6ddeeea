import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';
import { EVERYTHING } from './support/mcp-servers.js';

// A setup error after a real stdio MCP server has started must release it: the process exits at
// once with the error, instead of hanging with the server alive.

/** Processes whose environment holds `mark` (each project gives its servers its own). */
function processesMarked(mark: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').includes(mark)) found.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

const q = (value: unknown) => JSON.stringify(value);

function toolset(name: string, mark: string, extra = ''): string {
  return `kind: toolset
name: ${name}
mcp: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio], env: { AGENTCTL_TEST_MARK: ${q(mark)} } }
include: [echo]
${extra}`;
}

/** A project whose agent `a` fails to set up after the toolset `ev` has started. */
async function project(documents: (mark: string) => string[], files: Record<string, string> = {}) {
  const dir = await tempDir('agentctl-release-');
  const mark = `release-${randomUUID()}`;
  await mkdir(join(dir, 'agents'), { recursive: true });
  await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: release\n');
  await writeFile(join(dir, 'agents/a.yaml'), documents(mark).join('\n---\n'));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return { dir, mark };
}

async function runFailing(dir: string, mark: string) {
  const started = performance.now();
  const result = await agentctl(['run', 'a', 'hi'], { cwd: dir, timeoutMs: 20_000 });
  const seconds = (performance.now() - started) / 1000;
  return { ...result, seconds, left: processesMarked(mark) };
}

afterAll(removeTempDirs);

describe('agentctl run releases what setup started when a later step fails', () => {
  it('a module that exports no tool', async () => {
    const { dir, mark } = await project(
      (m) => [
        'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - toolset: ev\n  - module: ../tools/none.ts\n',
        toolset('ev', m),
      ],
      { 'tools/none.ts': 'export const answer = 42;\n' },
    );
    const run = await runFailing(dir, mark);
    expect(run.stderr).toMatch(/agents\/a\.yaml:6:\d+: error: module \.\.\/tools\/none\.ts exports no tool/);
    expect(run.stderr).toContain('nothing was run');
    expect(run.code).toBe(1);
    expect(run.seconds).toBeLessThan(10);
    expect(run.left).toEqual([]);
  });

  it('two toolsets exposing the same tool name', async () => {
    const { dir, mark } = await project((m) => [
      'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - toolset: ev\n  - toolset: ev2\n',
      toolset('ev', m),
      toolset('ev2', m),
    ]);
    const run = await runFailing(dir, mark);
    expect(run.stderr).toMatch(/error: agent `a` gets two tools named `echo`/);
    expect(run.code).toBe(1);
    expect(run.seconds).toBeLessThan(10);
    expect(run.left).toEqual([]);
  });

  it('a second toolset whose server fails to start', async () => {
    // A program and script that exist (validate's command-path passes them) and die at once: only starting it tells.
    const { dir, mark } = await project((m) => [
      'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - toolset: ev\n  - toolset: gone\n',
      toolset('ev', m),
      `kind: toolset\nname: gone\nmcp: { command: ${q(process.execPath)}, args: [-e, "process.exit(3)"] }\n`,
    ]);
    const run = await runFailing(dir, mark);
    expect(run.stderr).toMatch(/error: MCP server of toolset "gone" .*did not start/);
    expect(run.stderr).toContain('nothing was run');
    expect(run.code).toBe(1);
    expect(run.seconds).toBeLessThan(10);
    expect(run.left).toEqual([]);
  });

  it('a bad model, found after a sub-agent started its toolset', async () => {
    const { dir, mark } = await project((m) => [
      'kind: agent\nname: a\nmodel: keyed\nsub_agents: [helper]\n',
      'kind: agent\nname: helper\nmodel: offline/echo\ntools:\n  - toolset: ev\n',
      'kind: model\nname: keyed\nprovider: openai\nmodel: gpt-4.1-mini\napi_key: ${AGENTCTL_TEST_NO_KEY:?set AGENTCTL_TEST_NO_KEY}\n',
      toolset('ev', m),
    ]);
    const run = await runFailing(dir, mark);
    expect(run.stderr).toMatch(/error: environment variable AGENTCTL_TEST_NO_KEY is not set/);
    expect(run.code).toBe(1);
    expect(run.seconds).toBeLessThan(10);
    expect(run.left).toEqual([]);
  });

  it('a usage error once the runtime is up (resuming a session that does not exist)', async () => {
    const { dir, mark } = await project((m) => [
      'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - toolset: ev\n',
      toolset('ev', m),
    ]);
    const started = performance.now();
    const run = await agentctl(['run', 'a', '--approve', 'call_1', '--session', 'no-such-session'], {
      cwd: dir,
      timeoutMs: 20_000,
    });
    expect(run.stderr).toMatch(/no session with id no-such-session/);
    expect(run.code).toBe(2);
    expect((performance.now() - started) / 1000).toBeLessThan(10);
    expect(processesMarked(mark)).toEqual([]);
  });
});
