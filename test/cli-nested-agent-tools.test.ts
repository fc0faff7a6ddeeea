import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempDir } from './support/cli.js';

// boss asks clerk (an agent tool), which asks auditor (its own agent tool), whose refund waits
// for approval: the call waits two child sessions deep.
const AGENTS = `kind: agent
name: boss
description: Delegates
model: boss_script
tools: [{ agent: clerk }]
---
kind: agent
name: clerk
description: Delegates again
model: clerk_script
tools: [{ agent: auditor }]
---
kind: agent
name: auditor
description: Refunds
model: auditor_script
tools: [refund]
---
kind: tool
name: refund
description: Refunds an order
parameters: { type: object, properties: { order: { type: string } }, required: [order] }
command: { argv: [echo, "refunded {{ args.order }}"] }
needs_approval: true
`;
const MODELS = [
  [
    'boss',
    '- tool_calls: [{ id: call_boss, name: clerk, arguments: { request: refund A-17 } }]\n- text: boss heard back\n',
  ],
  [
    'clerk',
    '- tool_calls: [{ id: call_clerk, name: auditor, arguments: { request: refund A-17 } }]\n- text: clerk heard back\n',
  ],
  [
    'auditor',
    '- tool_calls: [{ id: call_refund, name: refund, arguments: { order: A-17 } }]\n- text: auditor refunded\n',
  ],
] as const;

let project: string;
beforeAll(async () => {
  project = await tempDir('agentctl-nested-');
  await mkdir(join(project, 'agents'));
  await mkdir(join(project, 'scripts'));
  await writeFile(join(project, 'agentctl.yaml'), 'kind: project\nname: nested\n');
  let yaml = AGENTS;
  for (const [name, script] of MODELS) {
    await writeFile(join(project, 'scripts', `${name}.yaml`), script);
    yaml += `---\nkind: model\nname: ${name}_script\nprovider: offline\nmodel: script\nscript: ../scripts/${name}.yaml\n`;
  }
  await writeFile(join(project, 'agents', 'nested.yaml'), yaml);
});
afterAll(removeTempDirs);

describe('a call waiting two agent tools deep', () => {
  it('runs once approved in a later process, and no session stays paused', async () => {
    const first = await agentctl(['run', 'boss', 'refund A-17', '--session', 'deep'], { cwd: project });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('call_refund  refund({"order":"A-17"})');
    // A child session shows as paused, but its calls are decided through the top session only.
    const listed0 = await agentctl(['sessions', 'list', '--json'], { cwd: project });
    const auditor = (JSON.parse(listed0.stdout) as Array<{ id: string; agent: string }>).find(
      (r) => r.agent === 'auditor',
    )!;
    const direct = await agentctl(['run', 'auditor', '--session', auditor.id, '--approve', 'call_refund'], {
      cwd: project,
    });
    expect(direct.code).toBe(2);
    expect(direct.stderr).toContain(
      `agentctl: session ${auditor.id} is paused inside session deep (agent boss), which waits on it through an agent tool: decide call_refund by resuming session deep`,
    );
    expect(direct.stdout).toBe('');
    // Nor can it be removed on its own: the top session would wait for it for good.
    const removed = await agentctl(['sessions', 'rm', auditor.id], { cwd: project });
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain(
      `agentctl: session ${auditor.id} is paused inside session deep, which waits on it through an agent tool; it was not removed`,
    );
    const resumed = await agentctl(
      ['run', 'boss', '--session', 'deep', '--approve', 'call_refund', '--json'],
      {
        cwd: project,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = parseNdjson(resumed.stdout);
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'call_refund')).toMatchObject({
      content: 'refunded A-17',
      isError: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'boss heard back' });
    const listed = await agentctl(['sessions', 'list', '--json'], { cwd: project });
    const rows = JSON.parse(listed.stdout) as Array<{ agent: string; paused: boolean }>;
    expect(rows.map((r) => [r.agent, r.paused]).sort()).toEqual([
      ['auditor', false],
      ['boss', false],
      ['clerk', false],
    ]);
  }, 60_000);
});
