import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, FIXTURES, isSessionPaused, pasteLine, removeTempDirs, tempDir } from './support/cli.js';

// test/fixtures/projects/refunds: `cashier` (offline auto) calls the `refund` command tool, which
// needs approval. The project sits in a folder with a space, reached from its parent with -C.
let parent: string;
let project: string;
beforeAll(async () => {
  parent = await tempDir('agentctl-resume-');
  project = join(parent, 'my shop');
  await cp(join(FIXTURES, 'projects', 'refunds'), project, { recursive: true });
});
afterAll(removeTempDirs);

describe.concurrent('the resume line of a run paused in a project reached with -C', () => {
  it('repeats -C, --model and --allow, and runs as printed from the folder the user is in', async () => {
    const first = await agentctl(
      [
        '-C',
        'my shop',
        'run',
        'cashier',
        'refund it',
        '--session',
        's1',
        '--model',
        'offline/auto',
        '--allow',
        'refund:order=Z-*',
      ],
      { cwd: parent },
    );
    expect(first.code, first.stderr).toBe(0);
    const line = /^resume with: (.*) \(or --deny/m.exec(first.stderr)?.[1];
    expect(line, first.stderr).toMatch(
      / -C "my shop" run cashier --session s1 --model offline\/auto --allow "refund:order=Z-\*" --approve \S+$/,
    );
    const resumed = await pasteLine(line!, parent);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('refunded example');
    expect(await isSessionPaused(project, 's1')).toBe(false);
  });

  it('names -C in the resume command of the error for a new prompt to the paused session', async () => {
    const first = await agentctl(['-C', 'my shop', 'run', 'cashier', 'refund it', '--session', 's2'], {
      cwd: parent,
    });
    expect(first.code, first.stderr).toBe(0);
    const again = await agentctl(['-C', 'my shop', 'run', 'cashier', 'more', '--session', 's2'], {
      cwd: parent,
    });
    expect(again.code).toBe(2);
    const line = /resume it with `([^`]*)`/.exec(again.stderr)?.[1];
    expect(line, again.stderr).toContain(' -C "my shop" run cashier --session s2 --approve ');
    const resumed = await pasteLine(line!, parent);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('refunded example');
  });
});
