import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, cliEnv, removeTempDirs, tempProject } from './support/cli.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

// A `parallel` fan-out whose `noter` branch remembers a note for the user (the memory tool's
// `state.update` of `user:memories`) while its `payer` branch waits for approval. Another process
// remembers a note for the same user while it waits; the fan-out is then resumed in a third.
const AGENTS = `kind: agent
name: fan
type: parallel
sub_agents: [noter, payer]
---
kind: agent
name: noter
model: noter_script
instruction: note
tools: [{ builtin: memory }]
---
kind: agent
name: payer
model: payer_script
instruction: pay
tools: [refund]
---
kind: agent
name: other
model: other_script
instruction: note
tools: [{ builtin: memory }]
---
kind: agent
name: recall
model: recall_script
instruction: recall
tools: [{ builtin: memory }]
---
kind: model
name: noter_script
provider: offline
model: script
script: ./scripts/noter.yaml
---
kind: model
name: payer_script
provider: offline
model: script
script: ./scripts/payer.yaml
---
kind: model
name: other_script
provider: offline
model: script
script: ./scripts/other.yaml
---
kind: model
name: recall_script
provider: offline
model: script
script: ./scripts/recall.yaml
---
kind: agent
name: mem
model: mem_script
instruction: mem
tools: [{ builtin: memory }]
---
kind: model
name: mem_script
provider: offline
model: script
script: ./scripts/mem.yaml
---
kind: tool
name: refund
description: Refunds an order
parameters: { type: object, properties: { order: { type: string } }, required: [order] }
command: { argv: [echo, "refunded {{ args.order }}"] }
needs_approval: true
`;

const SCRIPTS = {
  'agents/scripts/noter.yaml':
    '- tool_calls: [{ id: m1, name: memory, arguments: { action: remember, note: from-fan } }]\n- text: noted\n',
  'agents/scripts/payer.yaml':
    '- tool_calls: [{ id: r1, name: refund, arguments: { order: A-17 } }]\n- text: paid\n',
  'agents/scripts/other.yaml':
    '- tool_calls: [{ id: o1, name: memory, arguments: { action: remember, note: from-other } }]\n- text: noted\n',
  'agents/scripts/mem.yaml': [
    '- match: remember',
    '  tool_calls: [{ name: memory, arguments: { action: remember, note: buy milk } }]',
    '- match: remember',
    '  text: ok',
    '- match: recall',
    '  tool_calls: [{ name: memory, arguments: { action: recall } }]',
    '- match: recall',
    '  text: ok',
    '',
  ].join('\n'),
  'agents/scripts/recall.yaml':
    '- tool_calls: [{ id: c1, name: memory, arguments: { action: recall } }]\n- text: recalled\n',
};

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  await removeTempDirs();
});

async function project(backend: 'file' | 'postgres'): Promise<{ dir: string; env: Record<string, string> }> {
  const url = backend === 'postgres' ? await pg.createDatabase('fan_resume') : '';
  const memory =
    backend === 'postgres'
      ? '---\nkind: memory\nname: shared\nbackend: postgres\nurl: ${DATABASE_URL}\n'
      : '';
  const dir = await tempProject({
    'agentctl.yaml': `kind: project\nname: fan\nexclude: [agents/scripts/**]\n${backend === 'postgres' ? 'defaults: { memory: shared }\n' : ''}`,
    'agents/fan.yaml': AGENTS + memory,
    ...SCRIPTS,
  });
  return { dir, env: url ? { DATABASE_URL: url } : {} };
}

function shell(
  line: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], { cwd, env: cliEnv(env) });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe.each(['file', 'postgres'] as const)('a parallel fan-out resumed after a pause, on %s', (backend) => {
  it('keeps the note another process remembered for the user while it waited', async () => {
    const { dir, env } = await project(backend);
    const run = (args: string[]) => agentctl(['run', ...args], { cwd: dir, env });
    const paused = await run(['fan', 'go', '--session', 'f', '--user', 'ada']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stderr).toContain('paused: 1 tool call(s) wait for a decision');
    const other = await run(['other', 'go', '--session', 'o', '--user', 'ada']);
    expect(other.stderr).toContain('remembered as note 2');
    // Resumed as the pause says to: the line names the run's user, whose notes the fan-out shares.
    const line = /^resume with: (.*) \(or --deny/m.exec(paused.stderr)?.[1];
    expect(line, paused.stderr).toContain('--user ada');
    const resumed = await shell(line!, dir, env);
    expect(resumed.code, resumed.out).toBe(0);
    expect(resumed.out).toContain('refunded A-17');
    const recalled = await run(['recall', 'go', '--session', 'r', '--user', 'ada']);
    expect(recalled.stderr).toMatch(/1\. from-fan\s+2\. from-other/);
    // The resumed session's own view ends at the stored notes too.
    const shown = await agentctl(['sessions', 'show', 'f', '--json'], { cwd: dir, env });
    const notes = JSON.parse(shown.stdout).session.state['user:memories'] as Array<{ note: string }>;
    expect(notes.map((n) => n.note)).toEqual(['from-fan', 'from-other']);
    if (backend === 'file') {
      const scope = JSON.parse(
        await readFile(join(dir, '.agentctl/sessions/scopes/user%3Aada.json'), 'utf8'),
      );
      expect(scope.state['user:memories']).toHaveLength(2);
    }
  });
});

describe('the memory tool without a user', () => {
  it("keeps the session's notes for its next run", async () => {
    const { dir, env } = await project('file');
    const run = (prompt: string) => agentctl(['run', 'mem', prompt, '--session', 'chat'], { cwd: dir, env });
    expect((await run('remember this')).stderr).toContain('remembered as note 1');
    expect((await run('recall please')).stderr).toContain('1. buy milk');
  });
});
