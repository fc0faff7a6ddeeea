import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

describe("current_time's timezone option", () => {
  it('is checked by validate, and refused by run, when the runtime knows no such zone', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: agent
name: clock
model: offline/echo
tools:
  - builtin: current_time
    timezone: Europe/Pariss
---
kind: agent
name: good
model: offline/echo
tools:
  - builtin: current_time
    options: { timezone: Europe/Paris }
`,
    });
    const expected =
      'agents/a.yaml:6:15: error: built-in current_time: unknown time zone "Europe/Pariss" (use an IANA name such as "Europe/Paris" or "UTC") [plugin-options]';
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(`${expected}\n1 error, 0 warnings\n`);
    const run = await agentctl(['run', 'clock', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(expected);
    const good = await agentctl(['run', 'good', 'hi'], { cwd: dir });
    expect(good.code, good.stderr).toBe(0);
  });
});
