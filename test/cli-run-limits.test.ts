import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

describe('limits.timeout of zero', () => {
  it('is refused by validate and run, written as is or through ${VAR}, instead of ending every run at its start', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: agent
name: zero
model: offline/echo
limits: { timeout: 0s }
---
kind: agent
name: later
model: offline/echo
limits: { timeout: "\${RUN_LIMIT:-0s}" }
`,
    });
    const check = await agentctl(['validate'], { cwd: dir, env: { RUN_LIMIT: undefined } });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      [
        'agents/a.yaml:4:20: error: `timeout` is not valid; expected a duration longer than zero: milliseconds as a number, or a string such as "500ms", "30s", "2m", "1h". [schema]',
        'agents/a.yaml:9:20: error: limits.timeout: must be longer than zero [env-values]',
        '2 errors, 0 warnings',
        '',
      ].join('\n'),
    );
    const zero = await agentctl(['run', 'zero', 'hi'], { cwd: dir });
    expect(zero.code).toBe(1);
    expect(zero.stderr).not.toContain('session ');
    const later = await agentctl(['run', 'later', 'hi'], { cwd: dir, env: { RUN_LIMIT: undefined } });
    expect(later.code).toBe(1);
    expect(later.stderr).toContain('limits.timeout: must be longer than zero');
    const set = await agentctl(['run', 'later', 'hi'], { cwd: dir, env: { RUN_LIMIT: '30s' } });
    expect(set.code, set.stderr).toBe(0);
  });
});
