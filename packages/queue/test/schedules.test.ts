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
  ]);
  const [registered] = await listSchedules(queue);
  expect(registered).toMatchObject({
    name: 'every-second',
    cron: '*/1 * * * * *',
    timezone: 'Europe/Paris',
    agent: 'digest',
  });
  expect(registered.next).toBeGreaterThan(Date.now() - 5000);
  const deadline = Date.now() + 20_000;
  while ((await store.list()).length < 2 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const sessions = await store.list();
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
