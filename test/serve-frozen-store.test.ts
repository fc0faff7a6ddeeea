import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { liveEvents } from './support/live-events.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';
import { startServe, stopServers } from './support/serve.js';

// docs/serve.md, shutdown: SIGTERM lets runs finish for --grace, then cancels them. With the
// session store's PostgreSQL frozen (SIGSTOP: connections open, nothing answers), the cancelled
// run's last writes and its lease release wait for an answer that does not come: the process must
// still exit within the grace and a short wind-down, not after the store's query_timeout (30 s),
// and leave the session to be continued once the database is back.

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
  await stopServers();
  await pg?.stop();
  await removeTempDirs();
});

describe('agentctl serve stopped while its PostgreSQL is frozen', () => {
  it('exits within the grace and a short wind-down, and the session is continued once the database is back', async () => {
    const env = { DATABASE_URL: url, CRUNCH_SECONDS: '30' };
    const server = await startServe(dir, ['--grace', '500ms'], env);
    const response = await fetch(`${server.url}/agents/slow/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'crunch it', sessionId: 'frozen-1' }),
    });
    const stream = liveEvents(response);
    await stream.waitFor((e) => e.event === 'tool_call', { timeoutMs: 30_000 });
    pg.freeze();
    let code: number | null;
    try {
      server.child.kill('SIGTERM');
      // Bounded well below the store's 30 s query_timeout, which the shutdown waited out before.
      const killed = new Promise<'killed'>((resolve) => {
        const timer = setTimeout(() => resolve('killed'), 15_000);
        server.exited.then(() => clearTimeout(timer));
      });
      const outcome = await Promise.race([server.exited, killed]);
      expect(outcome, `serve did not exit in time; stderr:\n${server.stderr()}`).not.toBe('killed');
      code = outcome as number | null;
    } finally {
      pg.thaw();
    }
    expect(code).toBe(0);
    expect(server.stderr()).toContain(
      '1 cancelled (1 could not store their end: the session store did not answer',
    );
    await stream.close();

    // The dead server's lease lapses within its 30 s; here it is made to lapse now, as time would.
    await pg.sql('UPDATE agentctl_leases SET expires_at = 0', 'frozen');
    const again = await agentctl(['run', 'slow', 'crunch it again', '--session', 'frozen-1', '--json'], {
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
});
