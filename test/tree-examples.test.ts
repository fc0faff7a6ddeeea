import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AgentEvent } from '@agentctl/core';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = new URL('../packages/cli/bin/agentctl.js', import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;

async function events(agent: string, prompt: string): Promise<AgentEvent[]> {
  const { stdout } = await run('node', [CLI, 'run', agent, prompt, '--json', '--session', 'new'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AgentEvent);
}

describe('the agent-tree examples, through the CLI', () => {
  it('triage transfers an invoice question to billing, which answers', async () => {
    const log = await events('triage', 'where is my invoice?');
    expect(log.find((e) => e.type === 'transfer')).toMatchObject({ from: 'triage', to: 'billing' });
    const end = log.at(-1);
    expect(end).toMatchObject({
      type: 'run_end',
      status: 'complete',
      output: expect.stringContaining('invoice was paid'),
    });
    expect(log.filter((e) => e.type === 'text_delta').every((e) => e.branch === 'triage.billing')).toBe(true);
  });

  it('the research pipeline fans out in parallel and the writer reads both notes from state', async () => {
    const log = await events('research', 'local models');
    const branches = new Set(log.filter((e) => e.type === 'agent_end').map((e) => e.branch));
    expect(branches).toEqual(
      new Set([
        'research.plan',
        'research.gather.web',
        'research.gather.papers',
        'research.gather',
        'research.write',
        'research',
      ]),
    );
    const merged = log.find((e) => e.type === 'state_delta' && e.author === 'gather');
    expect(merged?.stateDelta).toMatchObject({
      web_notes: expect.stringContaining('articles'),
      paper_notes: expect.stringContaining('surveys'),
    });
    // Branch writes are held apart until the merge.
    expect(log.find((e) => e.type === 'agent_end' && e.author === 'web')).toMatchObject({
      branchDelta: { web_notes: expect.any(String) },
    });
    expect(log.at(-1)).toMatchObject({ status: 'complete', output: expect.stringMatching(/^Brief:/) });
  });

  it('the drafting loop ends when the critic escalates', async () => {
    const log = await events('drafting', 'describe agentctl');
    expect(log.filter((e) => e.type === 'escalate')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'agent_end' && e.author === 'writer')).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });
});
