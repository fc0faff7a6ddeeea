import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, REPO, removeTempDirs, tempDir } from './support/cli.js';

// The smaller things a new user meets in the first hour (issue 17).
let elsewhere: string;
beforeAll(async () => {
  elsewhere = await tempDir();
});
afterAll(removeTempDirs);

describe.concurrent('list, transfer labels', () => {
  it('list in a folder with no project says so, with exit 2', async () => {
    const { code, stdout, stderr } = await agentctl(['list'], { cwd: elsewhere });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^agentctl: no agentctl project in .*: no agentctl\.yaml here or in a parent folder/,
    );
    expect(stderr).toContain('agentctl init');
  });

  it('list places inline sub-agents without a description in their tree', async () => {
    const [text, json] = await Promise.all([
      agentctl(['-C', REPO, 'list'], { cwd: elsewhere }),
      agentctl(['-C', REPO, 'list', '--json'], { cwd: elsewhere }),
    ]);
    expect(text.stdout).toMatch(/^web +\(inline sub-agent of gather\)$/m);
    expect(text.stdout).toMatch(/^plan +Decides what to look for$/m);
    const rows = JSON.parse(json.stdout) as Array<{ name: string; parent?: string; inline: boolean }>;
    expect(rows.find((r) => r.name === 'web')).toMatchObject({ inline: true, parent: 'gather' });
    expect(rows.find((r) => r.name === 'research')?.parent).toBeUndefined();
  });

  it('after a transfer, the reply is labelled with the agent that wrote it', async () => {
    const project = await tempDir();
    await mkdir(join(project, 'agents'));
    await cp(join(REPO, 'agents/triage.yaml'), join(project, 'agents/triage.yaml'));
    const { code, stdout, stderr } = await agentctl(['run', 'triage', 'where is my invoice?'], {
      cwd: project,
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('Your last invoice was paid on 3 November; a refund takes 5 business days.\n');
    expect(stderr).toMatch(/⇢ triage transfers to billing\n[\s\S]*\[billing\]\n/);
  });
});

describe('dev --user and --allow', () => {
  let project: string;
  beforeAll(async () => {
    project = await tempDir('agentctl-dev-flags-');
    await mkdir(join(project, 'agents'));
    await mkdir(join(project, 'tools'));
    await writeFile(
      join(project, 'tools/visits.js'),
      `export const visits = {
  name: 'visits',
  description: 'Counts the visits of this user, in user: state shared by their sessions',
  parameters: { type: 'object', properties: {} },
  execute: (_args, ctx) => {
    const count = Number(ctx.state.get('user:visits') ?? 0) + 1;
    ctx.state.set('user:visits', count);
    return { visits: count };
  },
};
`,
    );
    await writeFile(
      join(project, 'agents/keeper.yaml'),
      `kind: agent
name: keeper
model: offline/auto
tools: [shout, { module: ../tools/visits.js }]
limits: { max_iterations: 3 }
---
kind: tool
name: shout
description: Repeats a text; a command tool, so it asks before each call
parameters: { type: object, properties: { text: { type: string } }, required: [text] }
command: { argv: [echo, "{{ args.text }}"] }
`,
    );
  });

  const dev = async (...flags: string[]) => {
    const { code, stdout, stderr } = await agentctl(['dev', 'keeper', '--json', ...flags], {
      cwd: project,
      input: 'go\n',
      timeoutMs: 40_000,
    });
    expect(code, stderr).toBe(0);
    const events = parseNdjson(stdout);
    const result = (name: string) =>
      events.find((e) => e.type === 'tool_result' && e.name === name) as { content: string } | undefined;
    return { events, result };
  };

  it('--allow runs a matching call that would otherwise wait for approval', async () => {
    const asked = await dev();
    expect(asked.events.some((e) => e.type === 'approval_required')).toBe(true);
    expect(asked.result('shout')).toBeUndefined();
    const allowed = await dev('--allow', 'shout');
    expect(allowed.events.some((e) => e.type === 'approval_required')).toBe(false);
    expect(allowed.result('shout')?.content).toBe('example');
  });

  it('--user shares user: state between the sessions of one user only', async () => {
    const visits = async (user: string) =>
      JSON.parse((await dev('--user', user, '--allow', 'shout')).result('visits')?.content ?? '{}').visits;
    expect(await visits('alice')).toBe(1);
    expect(await visits('alice')).toBe(2);
    expect(await visits('bob')).toBe(1);
  });

  it('a malformed --allow is bad usage before anything starts', async () => {
    const { code, stderr } = await agentctl(['dev', 'keeper', '--allow', ':x'], {
      cwd: project,
      input: 'go\n',
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^agentctl: /);
  });
});
