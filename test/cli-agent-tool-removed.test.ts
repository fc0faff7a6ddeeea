import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, parseNdjson, removeTempDirs } from './support/cli.js';

// test/fixtures/projects/lifecycle: `writer` asks `checker` as an agent tool (call_ask_checker);
// the checker's `refund` needs approval (call_checker_refund), so the writer's run pauses on it
// with the checker's session paused beneath. Then the writer's YAML loses `{ agent: checker }`.
let project: string;
beforeAll(async () => {
  project = await fixtureProject('lifecycle');
});
afterAll(removeTempDirs);

const run = (args: string[]) => agentctl(['run', ...args], { cwd: project });

interface Row {
  id: string;
  agent?: string;
  paused: boolean;
  parentId?: string;
}

async function sessions(): Promise<Row[]> {
  const listed = await agentctl(['sessions', 'list', '--json'], { cwd: project });
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Row[];
}

async function removeAgentTool(): Promise<void> {
  const file = join(project, 'agents', 'lifecycle.yaml');
  const yaml = await readFile(file, 'utf8');
  expect(yaml).toContain('tools: [{ agent: checker }]');
  await writeFile(file, yaml.replace('tools: [{ agent: checker }]', 'tools: []'));
}

describe('a paused agent tool removed from its parent', () => {
  it('resuming the parent (approve or deny) ends the child, says why, and never runs the call', async () => {
    for (const session of ['approved', 'denied']) {
      const first = await run(['writer', 'refund A-17', '--session', session]);
      expect(first.code, first.stderr).toBe(0);
    }
    const child = (parent: string, rows: Row[]) => rows.find((r) => r.parentId === parent)!;
    const before = await sessions();
    expect(child('approved', before)).toMatchObject({ agent: 'checker', paused: true });
    await removeAgentTool();

    for (const [session, decision] of [
      ['approved', ['--approve', 'call_checker_refund']],
      ['denied', ['--deny', 'call_checker_refund', '--reason', 'no']],
    ] as const) {
      const resumed = await run(['writer', '--session', session, ...decision, '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const events = parseNdjson(resumed.stdout);
      // The refund never ran: its call has no result; the writer's call to the gone tool says why.
      expect(
        events.find((e) => e.type === 'tool_result' && e.callId === 'call_checker_refund'),
      ).toBeUndefined();
      expect(events.find((e) => e.type === 'tool_result' && e.callId === 'call_ask_checker')).toMatchObject({
        isError: true,
        content: expect.stringContaining('Tool "checker" is no longer among the tools of agent writer'),
      });
      // The child's end is in the stream, under its branch, before the writer's own end.
      const cancelled = events.find((e) => e.type === 'error');
      expect(cancelled).toMatchObject({
        code: 'ABORTED',
        message: expect.stringContaining(`cancelled: session ${session} went on without this session`),
        context: { parentSessionId: session },
      });
      expect(String(cancelled?.branch)).toMatch(/^writer\.checker/);
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', branch: 'writer' });

      // Neither session waits any more; the child's log ends with why it was ended.
      const after = await sessions();
      expect(after.find((r) => r.id === session)).toMatchObject({ paused: false });
      const kid = child(session, after);
      expect(kid).toMatchObject({ paused: false });
      const shown = await agentctl(['sessions', 'show', kid.id], { cwd: project });
      expect(shown.stdout).toContain(`cancelled: session ${session} went on without this session`);
      expect(shown.stdout).toMatch(/\(run ended: error\)\s*$/);

      const again = await run(['writer', '--session', session, '--approve', 'call_checker_refund']);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`session ${session} is not paused`);
    }
  }, 90_000);
});
