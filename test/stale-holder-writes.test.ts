import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTool, createAgent, defineTool, Runner, type SessionStore } from '../packages/core/src/index.js';
import { scriptedModel } from '../packages/core/src/testing/index.js';
import { FileSessionStore } from '../packages/store-file/src/index.js';
import { PostgresSessionStore } from '../packages/store-postgres/src/index.js';
import { startPostgres, type TestPostgres } from './support/postgres.js';

// A run's process paused (a GC pause, a laptop lid, SIGSTOP) past its lease's expiry, while another
// process took the session, must not write when it wakes: not the ending of a child session a
// parent's resume left behind, not the shared `user:`/`app:` state. Each store is made to lose the
// lease at the worst moment: after the holder last confirmed it, just before its write reaches the store.

let pg: TestPostgres;
const dirs: string[] = [];
let schemas = 0;

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
}, 60_000);

const stores: Array<[string, () => Promise<{ store: SessionStore; other: SessionStore }>]> = [
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agentctl-stale-'));
      dirs.push(dir);
      return {
        store: new FileSessionStore({ path: dir, durable: false }),
        other: new FileSessionStore({ path: dir, durable: false }),
      };
    },
  ],
  [
    'postgres',
    async () => {
      const schema = `stale_${++schemas}`;
      return {
        store: new PostgresSessionStore({ url: pg.url(), schema }),
        other: new PostgresSessionStore({ url: pg.url(), schema }),
      };
    },
  ],
];

/**
 * `store`, except that the lease of session `victim` (once `armed`) lapses at once, and the
 * write `when` picks finds it taken by "machine B" (through `other`, a second connection) first.
 */
function losingLease(
  store: SessionStore,
  other: SessionStore,
  when: (method: string, args: unknown[]) => string | undefined,
): { store: SessionStore; arm(id: string): void; taken: () => boolean } {
  let victim: string | undefined;
  let taken = false;
  const takeOver = async (id: string) => {
    for (;;) {
      const answer = await other.lease(id, { holder: 'machine B', ttlMs: 60_000 });
      if ('lease' in answer) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const wrapped = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'lease')
        return (id: string, request: { holder: string; ttlMs: number }) =>
          target.lease(id, id === victim ? { ...request, ttlMs: 1 } : request);
      return async (...args: unknown[]) => {
        const id = victim && when(String(prop), args);
        if (id === victim && !taken) {
          taken = true;
          await takeOver(id);
        }
        return value.apply(target, args);
      };
    },
  });
  return {
    store: wrapped,
    arm: (id) => {
      victim = id;
    },
    taken: () => taken,
  };
}

describe.each(stores)('a holder that lost its lease writes nothing (%s store)', (_name, open) => {
  it('when ending a child session its parent left behind: the child stays as its new holder has it', async () => {
    const { store: real, other } = await open();
    const ran: string[] = [];
    const refund = defineTool<{ order: string }>({
      name: 'refund',
      description: 'refunds',
      parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
      needsApproval: true,
      execute: ({ order }) => {
        ran.push(order);
        return `refunded ${order}`;
      },
    });
    const clerk = createAgent({
      name: 'clerk',
      provider: scriptedModel([{ toolCalls: [{ name: 'refund', arguments: { order: 'A1' }, id: 'r1' }] }]),
      tools: [refund],
    });
    const boss = createAgent({
      name: 'boss',
      provider: scriptedModel([{ toolCalls: [{ name: 'clerk', arguments: { request: 'A1' }, id: 'c1' }] }]),
      tools: [agentTool(clerk)],
    });
    const paused = await new Runner({ agent: boss, store: real }).run({ input: 'go', sessionId: 'p' })
      .invocation;
    expect(paused.status).toBe('paused');
    const [child] = await real.list({ parentId: 'p' });
    const before = await real.get(child!.id);
    expect(before?.checkpoint).toBeDefined();

    // The child's lease is lost just before the first write that ends it.
    const losing = losingLease(real, other, (method, args) =>
      method === 'setCheckpoint' || method === 'append' ? (args[0] as string) : undefined,
    );
    losing.arm(child!.id);
    // The boss as it is after its YAML lost `{ agent: clerk }`: the child is left behind.
    const alone = createAgent({ name: 'boss', provider: scriptedModel([{ text: 'went on alone' }]) });
    const result = await new Runner({ agent: alone, store: losing.store }).resume({
      sessionId: 'p',
      decisions: [{ callId: 'r1', approve: true }],
    }).invocation;
    expect(result).toMatchObject({ status: 'complete', output: 'went on alone' });
    expect(losing.taken()).toBe(true);
    expect(ran).toEqual([]);
    // Nothing written to the child by the holder that lost it: still paused, no error, no end.
    const after = await real.get(child!.id);
    expect(after?.checkpoint).toEqual(before?.checkpoint);
    expect(after?.events).toHaveLength(before!.events.length);
    expect(await real.lease(child!.id, { holder: 'C', ttlMs: 1_000 })).toMatchObject({
      busy: { holder: 'machine B' },
    });
    await real.close?.();
    await other.close?.();
  });

  it('to the shared user: and app: state: the update is refused and the run stops', async () => {
    const { store: real, other } = await open();
    await real.updateScopedState?.('user:ada', { 'user:plan': 'free' });
    const upgrade = defineTool<Record<string, never>>({
      name: 'upgrade',
      description: 'upgrades the user',
      parameters: { type: 'object', properties: {} },
      execute: (_args, { state }) => {
        state.set('user:plan', 'pro');
        state.set('app:upgrades', 1);
        return 'upgraded';
      },
    });
    const agent = createAgent({
      name: 'desk',
      provider: scriptedModel([
        { toolCalls: [{ name: 'upgrade', arguments: {}, id: 'u1' }] },
        { text: 'done' },
      ]),
      tools: [upgrade],
    });
    const losing = losingLease(real, other, (method, args) =>
      method === 'updateScopedState'
        ? ((args[2] as { sessionId?: string } | undefined)?.sessionId ?? 's')
        : undefined,
    );
    losing.arm('s');
    const outcome = await new Runner({ agent, store: losing.store })
      .run({ input: 'upgrade me', sessionId: 's', userId: 'ada' })
      .invocation.catch((error: unknown) => error);
    expect(losing.taken()).toBe(true);
    expect(outcome).toMatchObject({
      code: 'ABORTED',
      message: expect.stringContaining('lost the lease on session s: machine B took it'),
    });
    expect(await real.getScopedState?.('user:ada')).toEqual({ 'user:plan': 'free' });
    expect(await real.getScopedState?.('app')).toEqual({});
    // Nor did the session get the tool's result after the lease was lost.
    const session = await real.get('s');
    expect(session?.events.some((e) => e.type === 'tool_result')).toBe(false);
    await real.close?.();
    await other.close?.();
  });
});
