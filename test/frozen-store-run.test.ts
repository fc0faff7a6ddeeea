import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { startLongRunning } from './support/long-running.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

// `agentctl run` stopped by SIGTERM while its session store's PostgreSQL is frozen (SIGSTOP:
// connections open, nothing answers): the run's last writes, its lease release and the store's
// close wait for an answer that does not come. The process must still exit within a short
// wind-down, not after the store's query_timeout (30 s) and connect timeout, and leave the session
// to be continued once the database is back.

const PROJECT = `kind: project
name: frozen
defaults: { memory: shared }
`;

const MEMORY = `kind: memory
name: shared
backend: postgres
url: \${DATABASE_URL}
`;

let pg: TestPostgres;
let dir: string;
let url: string;

beforeAll(async () => {
  pg = await startPostgres();
  dir = await fixtureProject('queue');
  await writeFile(join(dir, 'agentctl.yaml'), PROJECT);
  await writeFile(join(dir, 'agents/memory.yaml'), MEMORY);
  url = await pg.createDatabase('frozen');
}, 90_000);

afterAll(async () => {
  pg?.thaw();
  await pg?.stop();
  await removeTempDirs();
});

it('agentctl run: SIGTERM with the store frozen exits 143 within a short wind-down, saying so, and the session is continued once the database is back', async () => {
  const env = { DATABASE_URL: url, CRUNCH_SECONDS: '30' };
  const run = await startLongRunning(
    dir,
    ['run', 'slow', 'crunch it', '--session', 'frozen-run', '--json'],
    env,
    /"type":"tool_call"/,
  );
  pg.freeze();
  let outcome: number | null | 'late';
  try {
    run.child.kill('SIGTERM');
    // A bound well below the store's 30 s query_timeout, which the run waited out before.
    const late = new Promise<'late'>((resolve) => {
      const timer = setTimeout(() => resolve('late'), 20_000);
      void run.exited.then(() => clearTimeout(timer));
    });
    outcome = await Promise.race([run.exited, late]);
  } finally {
    pg.thaw();
  }
  expect(outcome, `run did not exit in time; stderr:\n${run.stderr()}`).toBe(143);
  // One wind-down for the run's end and the store's close, said once: the store that did not answer
  // for the run's end is not waited for a second time to close (which doubled the wait).
  expect(run.stderr()).toBe(
    '\nSIGTERM: cancelling… (again to quit at once)\n' +
      'agentctl: the run did not end within 2000 ms of being stopped (a session store that does not answer, or a tool that does not stop); exiting without it: session frozen-run keeps what was stored, and can be continued once its lease lapses\n',
  );

  // The dead run's lease lapses within its 30 s; here it is made to lapse now, as time would.
  await pg.sql('UPDATE agentctl_leases SET expires_at = 0', 'frozen');
  const again = await agentctl(['run', 'slow', 'crunch it again', '--session', 'frozen-run', '--json'], {
    cwd: dir,
    env: { ...env, CRUNCH_SECONDS: '0' },
    timeoutMs: 60_000,
  });
  expect(again.stderr).toBe('');
  expect(again.code).toBe(0);
  const events = again.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; status?: string });
  expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
}, 120_000);
