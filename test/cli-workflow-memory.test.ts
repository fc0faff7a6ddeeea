import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// A workflow agent (sequential, parallel, loop) that starts a run keeps its session where its
// `memory`, or the project's `defaults.memory`, says: with PostgreSQL there, a workflow's sessions
// written to the local folder would be seen by no other process.
const AGENTS = [
  'kind: agent',
  'name: one',
  'model: offline/echo',
  '---',
  'kind: agent',
  'name: flow',
  'type: sequential',
  'sub_agents: [one]',
  '---',
  'kind: agent',
  'name: own',
  'type: loop',
  'max_iterations: 1',
  'sub_agents: [two]',
  'memory: own-folder',
  '---',
  'kind: agent',
  'name: two',
  'model: offline/echo',
  '---',
  'kind: memory',
  'name: elsewhere',
  'backend: file',
  'path: ../shared-sessions',
  '---',
  'kind: memory',
  'name: own-folder',
  'backend: file',
  'path: ../own-sessions',
  '',
].join('\n');

describe('a workflow agent that starts a run', () => {
  it("keeps its session in the project's defaults.memory, and in its own memory when it names one", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\ndefaults: { memory: elsewhere }\n',
      'agents/a.yaml': AGENTS,
    });
    for (const [agent, session] of [
      ['flow', 'w1'],
      ['own', 'w2'],
    ]) {
      const run = await agentctl(['run', agent, 'hi', '--session', session], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('hi');
    }
    expect(existsSync(join(dir, 'shared-sessions/w1.jsonl'))).toBe(true);
    expect(existsSync(join(dir, 'own-sessions/w2.jsonl'))).toBe(true);
    expect(existsSync(join(dir, '.agentctl/sessions'))).toBe(false);
    // The conversation goes on from the same place.
    const again = await agentctl(['run', 'flow', 'again', '--session', 'w1'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    const listed = await agentctl(['sessions', 'list'], { cwd: dir });
    expect(listed.stdout).toMatch(/w1\s+flow\s+\d+/);
  });
});
