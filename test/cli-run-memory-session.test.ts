import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const WARNING =
  'agentctl: warning: agent a keeps its sessions in process memory (backend: memory), which ends with this run: --session s1 starts empty and is not kept';

describe('run --session on an agent whose memory is the process', () => {
  it('warns that the session neither comes from an earlier run nor outlives this one', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': `kind: memory
name: ram
backend: memory
---
kind: agent
name: a
model: offline/echo
memory: ram
`,
    });
    const first = await agentctl(['run', 'a', 'remember me', '--session', 's1'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(WARNING);
    // The second run does not see the first: the warning is what it says.
    const second = await agentctl(['run', 'a', 'again', '--session', 's1', '--json'], { cwd: dir });
    expect(second.stderr).toContain(WARNING);
    const messages = second.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string } })
      .filter((event) => event.type === 'message' && event.message?.role === 'user');
    expect(messages).toHaveLength(1);
    // Without --session there is nothing to continue, and nothing to warn of.
    const fresh = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(fresh.stderr).not.toContain('process memory');
  });
});
