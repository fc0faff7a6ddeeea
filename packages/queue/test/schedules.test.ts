import { AutoModel, createAgent, InMemorySessionStore } from '@agentctl/core';
import { expect, it } from 'vitest';
import { listSchedules, RunQueue, RunWorker, syncSchedules } from '../src/index.js';
import { useRedis } from './support/use-redis.js';

const { connect } = useRedis();

it('a schedule runs its agent on its cron through BullMQ job schedulers, and goes when the project drops it', async () => {
  const store = new InMemorySessionStore();
  const agent = createAgent({ name: 'digest', provider: new AutoModel() });
  const worker = new RunWorker({
    connection: await connect(),
    agents: () => ({ agent, store, release: () => undefined }),
  });
  await worker.start();
  const queue = new RunQueue(await connect());
  // Six fields: seconds first, so the test sees runs within seconds.
  await syncSchedules(queue, [
    {
      name: 'every-second',
      cron: '*/1 * * * * *',
      agent: 'digest',
      input: 'write the digest',
      timezone: 'Europe/Paris',
    },
    // `session:` makes every run continue one session.
    {
      name: 'into-one',
      cron: '*/1 * * * * *',
      agent: 'digest',
      input: 'add to the log',
      session: 'digest-log',
    },
  ]);
  const [registered] = (await listSchedules(queue)).filter((s) => s.name === 'every-second');
  expect(registered).toMatchObject({
    name: 'every-second',
    cron: '*/1 * * * * *',
    timezone: 'Europe/Paris',
    agent: 'digest',
  });
  expect(registered.next).toBeGreaterThan(Date.now() - 5000);
  const runsIn = async (id: string) =>
    ((await store.get(id))?.events ?? []).filter((e) => e.type === 'run_end').length;
  const fresh = async () => (await store.list()).filter((s) => s.id !== 'digest-log');
  const deadline = Date.now() + 20_000;
  while (((await fresh()).length < 2 || (await runsIn('digest-log')) < 2) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(await runsIn('digest-log')).toBeGreaterThanOrEqual(2);
  const log = (await store.get('digest-log'))!;
  const inputs = log.events.flatMap((e) => (e.type === 'run_start' ? [e.input] : []));
  expect(inputs.length).toBeGreaterThanOrEqual(2);
  expect(new Set(inputs)).toEqual(new Set(['add to the log']));
  const sessions = await fresh();
  expect(sessions.length).toBeGreaterThanOrEqual(2);
  for (const summary of sessions) {
    const session = (await store.get(summary.id))!;
    // A new session per run, named after the run; the scheduled input is the user message.
    expect(summary.id).toMatch(/^run-/);
    expect(session.events.find((e) => e.type === 'run_start')).toMatchObject({ input: 'write the digest' });
    expect(session.events.filter((e) => e.type === 'run_end')).toHaveLength(1);
  }
  await syncSchedules(queue, []);
  expect(await listSchedules(queue)).toEqual([]);
  await worker.close(2000);
  await queue.close();
});
