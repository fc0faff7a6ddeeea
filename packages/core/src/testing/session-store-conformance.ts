import assert from 'node:assert/strict';
import type { AgentEvent } from '../events.js';
import type { SessionStore } from '../session.js';
import { InvalidSessionIdError } from '../session-id.js';
import { type SessionLease, SessionLeaseLostError } from '../session-lease.js';
import { compareSessions, listSessionPage, type SessionPosition } from '../session-page.js';
import { sleep } from '../timing/sleep.js';
import { messageEvent } from './message-event.js';

/** A store under test on fresh, empty storage, with what the suite needs to know about it. */
export interface SessionStoreHarness {
  store: SessionStore;
  /** Another store over the same storage, as a second process or machine opens it (omit for in-process stores). */
  reopen?(): SessionStore | Promise<SessionStore>;
  /** Damages a stored session the way a crash or a hand edit could, so that it cannot be read. */
  corrupt?(id: string): Promise<void>;
  /** Removes the storage. */
  dispose?(): Promise<void>;
}

/** One case of the suite: give each to your test runner's `it`. */
export interface ConformanceCase {
  name: string;
  run(): Promise<void>;
}

/**
 * The behaviour every {@link SessionStore} promises, as test cases independent of any test runner.
 * `open` makes a harness on fresh storage for each case.
 *
 * @example
 * import { describe, it } from 'vitest';
 * describe('my store', () => {
 *   for (const c of sessionStoreConformance(async () => ({ store: new MyStore() }))) it(c.name, c.run);
 * });
 */
export function sessionStoreConformance(open: () => Promise<SessionStoreHarness>): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const test = (name: string, body: (h: SessionStoreHarness) => Promise<void>) =>
    cases.push({
      name,
      run: async () => {
        const harness = await open();
        try {
          await body(harness);
        } finally {
          await harness.store.close?.();
          await harness.dispose?.();
        }
      },
    });

  test('create: a new session with the given fields, or a fresh id; a taken id is refused', async ({
    store,
  }) => {
    const session = await store.create({ id: 's1', agent: 'triage', state: { company: 'Acme' } });
    assert.equal(session.version, 1);
    assert.equal(session.id, 's1');
    assert.equal(session.agent, 'triage');
    assert.deepEqual(session.state, { company: 'Acme' });
    assert.deepEqual(session.events, []);
    assert.ok(session.createdAt > 0 && session.updatedAt >= session.createdAt);
    const fresh = await store.create({});
    assert.ok(fresh.id.length > 0 && fresh.id !== 's1');
    assert.deepEqual(plain(await store.get(fresh.id)), plain(fresh));
    await assert.rejects(store.create({ id: 's1' }), /s1/);
    assert.equal(await store.get('missing'), undefined);
  });

  test('append and get: events in order, state from their deltas, copies handed out', async ({ store }) => {
    await store.create({ id: 's', state: { keep: 1, drop: 2 } });
    await store.append('s', [messageEvent('one', { step: 1, drop: null })]);
    await store.append('s', [messageEvent('two', { step: 2 }), messageEvent('three')]);
    const session = await store.get('s');
    assert.deepEqual(session?.events.map(text), ['one', 'two', 'three']);
    assert.deepEqual(session?.state, { keep: 1, step: 2 });
    assert.ok((session?.updatedAt ?? 0) >= (session?.createdAt ?? Infinity));
    session?.events.pop();
    session!.state.step = 99;
    const again = await store.get('s');
    assert.equal(again?.events.length, 3);
    assert.equal(again?.state.step, 2);
    await assert.rejects(store.append('missing', [messageEvent('x')]));
  });

  test('checkpoint: stored, read back, listed as paused, cleared', async ({ store }) => {
    await store.create({ id: 'p' });
    const checkpoint = { version: 1, pending: [{ call: { id: 'c1', name: 'refund', arguments: {} } }] };
    await store.setCheckpoint('p', checkpoint);
    assert.deepEqual((await store.get('p'))?.checkpoint, checkpoint);
    assert.equal((await store.list()).find((s) => s.id === 'p')?.paused, true);
    await store.append('p', [messageEvent('after')]);
    assert.deepEqual((await store.get('p'))?.checkpoint, checkpoint);
    await store.setCheckpoint('p', undefined);
    assert.equal((await store.get('p'))?.checkpoint, undefined);
    assert.equal((await store.list()).find((s) => s.id === 'p')?.paused, false);
  });

  test('list: summaries with event counts, filtered by parent', async ({ store }) => {
    await store.create({ id: 'parent', agent: 'triage' });
    await store.create({ id: 'child', agent: 'billing', parentId: 'parent', parentCallId: 'call_1' });
    await store.create({ id: 'other' });
    await store.append('parent', [messageEvent('a'), messageEvent('b')]);
    const all = await store.list();
    assert.deepEqual(all.map((s) => s.id).sort(), ['child', 'other', 'parent']);
    const parent = all.find((s) => s.id === 'parent');
    assert.equal(parent?.eventCount, 2);
    assert.equal(parent?.agent, 'triage');
    assert.equal(parent?.paused, false);
    const children = await store.list({ parentId: 'parent' });
    assert.deepEqual(
      children.map((s) => [s.id, s.parentCallId]),
      [['child', 'call_1']],
    );
  });

  test('list pages: newest first by creation (ties by id), each once, none skipped or repeated whatever is written, created or deleted between pages', async ({
    store,
  }) => {
    // Created quickly, so that many share a millisecond: the ids order those.
    const ids = Array.from({ length: 23 }, (_, i) => `s-${String.fromCharCode(i % 2 ? 65 + i : 97 + i)}${i}`);
    for (const id of ids) await store.create({ id, agent: 'a' });
    await store.create({ id: 'kid-1', parentId: ids[0], parentCallId: 'c1' });
    await store.create({ id: 'kid-2', parentId: ids[0], parentCallId: 'c2' });
    const expected = (await store.list()).sort(compareSessions).map((s) => s.id);
    // A store that pages itself must not read every summary for a page (one without is paged by its `list`).
    const list = store.list;
    if (store.listPage) store.list = () => Promise.reject(new Error('a page read every summary'));
    try {
      const seen: string[] = [];
      let after: SessionPosition | undefined;
      for (let page = 0; ; page++) {
        const answer = await listSessionPage(store, { limit: 4, after });
        assert.ok(answer.sessions.length <= 4);
        seen.push(...answer.sessions.map((s) => s.id));
        if (!answer.next) break;
        assert.deepEqual(answer.next, {
          createdAt: answer.sessions[3]!.createdAt,
          id: answer.sessions[3]!.id,
        });
        after = answer.next;
        assert.ok(page < 20, 'no last page');
      }
      assert.deepEqual(seen, expected);
      // Again, writing between pages: a new session, every session not shown yet, one deleted.
      const shown: string[] = [];
      after = undefined;
      let deleted: SessionPosition | undefined;
      for (let page = 0; ; page++) {
        const answer = await listSessionPage(store, { limit: 5, after });
        shown.push(...answer.sessions.map((s) => s.id));
        if (!answer.next) break;
        after = answer.next;
        await store.create({ id: `late-${page}` });
        for (const id of expected.filter((id) => !shown.includes(id) && id !== deleted?.id))
          await store.append(id, [messageEvent(`more for ${id}`)]);
        if (page === 1) {
          // The next session not yet shown (not a child: those are looked for below).
          const next = await listSessionPage(store, { limit: 10, after });
          const doomed = next.sessions.find((s) => s.id.startsWith('s-'))!;
          deleted = { createdAt: doomed.createdAt, id: doomed.id };
          await store.delete(doomed.id);
        }
      }
      // A session created between pages comes before the cursor, unless made in the very millisecond
      // of the cursor's session with an id that sorts below it: then a later page has it, once.
      assert.equal(new Set(shown).size, shown.length);
      assert.deepEqual(
        shown.filter((id) => !id.startsWith('late-')),
        expected.filter((id) => id !== deleted?.id),
      );
      const kids = await listSessionPage(store, { limit: 1, parentId: ids[0] });
      assert.deepEqual(
        kids.sessions.map((s) => s.parentId),
        [ids[0]],
      );
      const rest = await listSessionPage(store, { limit: 5, parentId: ids[0], after: kids.next });
      assert.deepEqual([...kids.sessions, ...rest.sessions].map((s) => s.id).sort(), ['kid-1', 'kid-2']);
      assert.equal(rest.next, undefined);
      // After a position no session has (a deleted one, a time between two, a time of no session).
      const every = await listSessionPage(store, {
        limit: 100,
        after: { createdAt: Number.MAX_SAFE_INTEGER, id: 'z' },
      });
      const old = shown.filter((id) => !id.startsWith('late-'));
      assert.deepEqual(
        every.sessions.map((s) => s.id).filter((id) => !id.startsWith('late-')),
        old,
      );
      const middle = every.sessions.find((s) => s.id === old[10])!;
      const fromHalf = await listSessionPage(store, {
        limit: 100,
        after: { createdAt: middle.createdAt + 0.5, id: 'a' },
      });
      assert.deepEqual(
        fromHalf.sessions.map((s) => s.id),
        every.sessions.filter((s) => s.createdAt <= middle.createdAt).map((s) => s.id),
      );
      // A cursor naming a session deleted since still places the next page.
      const afterGone = await listSessionPage(store, { limit: 100, after: deleted });
      assert.equal(
        afterGone.sessions.find((s) => !s.id.startsWith('late-'))?.id,
        expected[expected.indexOf(deleted!.id) + 1],
      );
      assert.deepEqual(await listSessionPage(store, { limit: 3, after: { createdAt: 0.5, id: 'a' } }), {
        sessions: [],
      });
      // A page of none, or of a fraction, has no last session to go on from: refused, by the store too.
      for (const limit of [0, -1, 2.5, Number.NaN]) {
        await assert.rejects(listSessionPage(store, { limit }), RangeError);
        if (store.listPage) await assert.rejects(async () => store.listPage!({ limit }), RangeError);
      }
    } finally {
      store.list = list;
    }
  });

  test('delete: removes a session with its child sessions, false when absent', async ({ store }) => {
    await store.create({ id: 'parent' });
    await store.create({ id: 'child', parentId: 'parent', parentCallId: 'c' });
    await store.create({ id: 'grandchild', parentId: 'child', parentCallId: 'd' });
    await store.create({ id: 'other' });
    assert.equal(await store.delete('parent'), true);
    assert.deepEqual(
      (await store.list()).map((s) => s.id),
      ['other'],
    );
    assert.equal(await store.get('grandchild'), undefined);
    assert.equal(await store.delete('parent'), false);
    await store.create({ id: 'parent' });
    assert.deepEqual((await store.get('parent'))?.events, []);
  });

  test('scoped state: app and user scopes shared beyond one session, null deletes', async (h) => {
    const { store } = h;
    if (!store.getScopedState || !store.updateScopedState) return;
    await store.updateScopedState('app', { 'app:theme': 'dark', 'app:gone': 1 });
    await store.updateScopedState('app', { 'app:gone': null });
    await store.updateScopedState('user:ada', { 'user:lang': 'fr' });
    assert.deepEqual(await store.getScopedState('app'), { 'app:theme': 'dark' });
    assert.deepEqual(await store.getScopedState('user:ada'), { 'user:lang': 'fr' });
    assert.deepEqual(await store.getScopedState('user:bob'), {});
    const other = await h.reopen?.();
    if (other?.getScopedState) assert.deepEqual(await other.getScopedState('app'), { 'app:theme': 'dark' });
  });

  test('ids: one rule in every store, refused before anything is stored', async ({ store }) => {
    for (const id of ['../x', 'a/b', '..', '.hidden', 'index', 'a..b', 'x'.repeat(129), 's.lock']) {
      await assert.rejects(store.create({ id }), InvalidSessionIdError, id);
      await assert.rejects(store.get(id), InvalidSessionIdError, id);
      await assert.rejects(store.lease(id, { holder: 'h', ttlMs: 1_000 }), InvalidSessionIdError, id);
    }
    assert.deepEqual(await store.list(), []);
    await store.create({ id: 'x'.repeat(128) });
  });

  test('lease: exclusive, on an id with no session yet, named to the next asker, freed by release', async ({
    store,
  }) => {
    const first = await takeLease(store, 'new-id', 'invocation A');
    assert.equal(first.sessionId, 'new-id');
    const second = await store.lease('new-id', { holder: 'invocation B', ttlMs: 10_000 });
    assert.ok('busy' in second);
    assert.equal(second.busy.holder, 'invocation A');
    assert.ok(second.busy.expiresAt >= first.expiresAt - 1);
    // Another session is not held.
    await takeLease(store, 'other-id', 'invocation C');
    // Release with a stale token does nothing; with the right one it frees the session.
    await store.releaseLease({ ...first, token: 'not-the-token' });
    assert.ok('busy' in (await store.lease('new-id', { holder: 'B', ttlMs: 10_000 })));
    await store.releaseLease(first);
    const third = await takeLease(store, 'new-id', 'invocation B');
    assert.notEqual(third.token, first.token);
  });

  test('lease: renewal extends it; an expired lease is taken over and its old holder told so', async ({
    store,
  }) => {
    const lease = await takeLease(store, 's', 'A', 200);
    const renewed = await store.renewLease(lease, 10_000);
    assert.ok(renewed.expiresAt > lease.expiresAt);
    assert.ok('busy' in (await store.lease('s', { holder: 'B', ttlMs: 1_000 })));
    const short = await store.renewLease(renewed, 60);
    await sleep(120);
    const taken = await takeLease(store, 's', 'B');
    await assert.rejects(store.renewLease(short, 1_000), SessionLeaseLostError);
    // The old holder's release does not free the new holder's lease.
    await store.releaseLease(short);
    assert.ok('busy' in (await store.lease('s', { holder: 'C', ttlMs: 1_000 })));
    await store.releaseLease(taken);
  });

  test('fenced writes: made while the lease holds, refused with SessionLeaseLostError and nothing written once another holder took it', async (h) => {
    const { store } = h;
    await store.create({ id: 'f' });
    const first = await takeLease(store, 'f', 'A', 60);
    await store.append('f', [messageEvent('by A', { who: 'A' })], first);
    await store.setCheckpoint('f', { by: 'A' }, first);
    // Lapsed but taken by nobody: still the holder's (nobody else has written since).
    await sleep(120);
    await store.append('f', [messageEvent('A, late')], first);
    // Another holder (on another connection, as another machine) takes the lapsed lease.
    const other = (await h.reopen?.()) ?? store;
    const second = await takeLease(other, 'f', 'B');
    await assert.rejects(
      store.append('f', [messageEvent('stale', { who: 'stale' })], first),
      SessionLeaseLostError,
    );
    await assert.rejects(store.setCheckpoint('f', { by: 'stale' }, first), SessionLeaseLostError);
    await assert.rejects(store.setCheckpoint('f', undefined, first), SessionLeaseLostError);
    const session = await store.get('f');
    assert.deepEqual(session?.events.map(text), ['by A', 'A, late']);
    assert.deepEqual(session?.state, { who: 'A' });
    assert.deepEqual(session?.checkpoint, { by: 'A' });
    assert.equal((await store.list()).find((s) => s.id === 'f')?.eventCount, 2);
    // The new holder writes; a released lease fences nothing any more, and a fence for no session is refused.
    await other.append('f', [messageEvent('by B')], second);
    await other.releaseLease(second);
    await assert.rejects(other.append('f', [messageEvent('after release')], second), SessionLeaseLostError);
    assert.deepEqual((await store.get('f'))?.events.map(text), ['by A', 'A, late', 'by B']);
    const none = await takeLease(store, 'no-session', 'C');
    await assert.rejects(
      store.append('no-session', [messageEvent('x')], none),
      (error: unknown) => !(error instanceof SessionLeaseLostError),
    );
  });

  test('scoped state fenced by a lease: written while it holds, refused with nothing written once another took it', async (h) => {
    const { store } = h;
    if (!store.updateScopedState || !store.getScopedState) return;
    await store.create({ id: 'g' });
    const first = await takeLease(store, 'g', 'A', 60);
    await store.updateScopedState('user:ada', { 'user:by': 'A', 'user:gone': 1 }, first);
    await sleep(120);
    const other = (await h.reopen?.()) ?? store;
    const second = await takeLease(other, 'g', 'B');
    await assert.rejects(
      store.updateScopedState('user:ada', { 'user:by': 'stale', 'user:gone': null }, first),
      SessionLeaseLostError,
    );
    await assert.rejects(store.updateScopedState('app', { 'app:by': 'stale' }, first), SessionLeaseLostError);
    assert.deepEqual(await store.getScopedState('user:ada'), { 'user:by': 'A', 'user:gone': 1 });
    assert.deepEqual(await store.getScopedState('app'), {});
    // The new holder's update merges key by key with what is there.
    await other.updateScopedState?.('user:ada', { 'user:gone': null, 'user:more': 2 }, second);
    assert.deepEqual(await store.getScopedState('user:ada'), { 'user:by': 'A', 'user:more': 2 });
    await other.releaseLease(second);
  });

  test('scoped key: concurrent updates of one key each build on the latest value; null deletes; a throwing update writes nothing', async (h) => {
    const { store } = h;
    if (!store.updateScopedKey || !store.getScopedState) return;
    const other = (await h.reopen?.()) ?? store;
    await store.updateScopedState?.('user:ada', { 'user:lang': 'fr' });
    const add = (by: SessionStore, n: number) =>
      by.updateScopedKey!('user:ada', 'user:notes', (current) => [
        ...((current as number[] | undefined) ?? []),
        n,
      ]);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => add(n % 2 === 0 ? store : other, n)),
    );
    const notes = (await store.getScopedState('user:ada'))['user:notes'] as number[];
    assert.deepEqual(
      [...notes].sort((a, b) => a - b),
      Array.from({ length: 12 }, (_, n) => n),
    );
    // Each answer is the list as that update left it: one more note than the one before it.
    assert.deepEqual(
      answers.map((a) => (a as number[]).length).sort((a, b) => a - b),
      Array.from({ length: 12 }, (_, n) => n + 1),
    );
    assert.equal((await store.getScopedState('user:ada'))['user:lang'], 'fr');
    await assert.rejects(
      store.updateScopedKey('user:ada', 'user:notes', () => {
        throw new Error('no such note');
      }),
      /no such note/,
    );
    assert.equal(((await store.getScopedState('user:ada'))['user:notes'] as number[]).length, 12);
    assert.equal(await store.updateScopedKey('user:ada', 'user:notes', () => null), undefined);
    assert.deepEqual(await store.getScopedState('user:ada'), { 'user:lang': 'fr' });
    assert.deepEqual(
      await store.updateScopedKey('app', 'app:count', (n) => ((n as number | undefined) ?? 0) + 1),
      1,
    );
    assert.deepEqual(await other.getScopedState?.('app'), { 'app:count': 1 });
  });

  test('scoped key fenced by a lease: updated while it holds, refused with nothing written once another took it', async (h) => {
    const { store } = h;
    if (!store.updateScopedKey || !store.getScopedState) return;
    await store.create({ id: 'k' });
    const first = await takeLease(store, 'k', 'A', 60);
    assert.deepEqual(await store.updateScopedKey('user:ada', 'user:by', () => ['A'], first), ['A']);
    await sleep(120);
    const other = (await h.reopen?.()) ?? store;
    const second = await takeLease(other, 'k', 'B');
    await assert.rejects(
      store.updateScopedKey('user:ada', 'user:by', (current) => [...(current as string[]), 'stale'], first),
      SessionLeaseLostError,
    );
    await assert.rejects(
      store.updateScopedKey('app', 'app:by', () => 'stale', first),
      SessionLeaseLostError,
    );
    assert.deepEqual(await store.getScopedState('user:ada'), { 'user:by': ['A'] });
    assert.deepEqual(await store.getScopedState('app'), {});
    assert.deepEqual(
      await other.updateScopedKey?.(
        'user:ada',
        'user:by',
        (current) => [...(current as string[]), 'B'],
        second,
      ),
      ['A', 'B'],
    );
    await other.releaseLease(second);
  });

  test('lease: seen by a second store on the same storage (another process or machine)', async (h) => {
    const other = await h.reopen?.();
    if (!other) return;
    const lease = await takeLease(h.store, 'shared', 'invocation A');
    const answer = await other.lease('shared', { holder: 'invocation B', ttlMs: 1_000 });
    assert.ok('busy' in answer && answer.busy.holder === 'invocation A');
    await h.store.releaseLease(lease);
    await other.releaseLease(await takeLease(other, 'shared', 'invocation B'));
  });

  test('concurrency: one of many simultaneous lease requests wins; parallel appends lose nothing', async (h) => {
    const { store } = h;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.lease('race', { holder: `h${i}`, ttlMs: 10_000 })),
    );
    assert.equal(answers.filter((a) => 'lease' in a).length, 1);
    await store.create({ id: 'busy' });
    const other = (await h.reopen?.()) ?? store;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (i % 2 ? other : store).append('busy', [messageEvent(`m${i}`, { [`k${i}`]: i })]),
      ),
    );
    const session = await store.get('busy');
    assert.equal(session?.events.length, 60);
    assert.equal(Object.keys(session?.state ?? {}).length, 60);
    assert.equal((await store.list()).find((s) => s.id === 'busy')?.eventCount, 60);
  });

  test('persistence: a second store on the same storage reads what the first wrote', async (h) => {
    const other = await h.reopen?.();
    if (!other) return;
    await h.store.create({ id: 'kept', agent: 'a', parentId: undefined });
    await h.store.append('kept', [messageEvent('one', { n: 1 })]);
    await h.store.setCheckpoint('kept', { version: 1 });
    const seen = await other.get('kept');
    assert.deepEqual(plain(seen), plain(await h.store.get('kept')));
    await other.append('kept', [messageEvent('two', { n: 2 })]);
    assert.deepEqual((await h.store.get('kept'))?.events.map(text), ['one', 'two']);
    assert.equal((await h.store.list()).find((s) => s.id === 'kept')?.eventCount, 2);
  });

  test('corruption: an unreadable session is reported, never overwritten, and others stay usable', async (h) => {
    if (!h.corrupt) return;
    const { store } = h;
    await store.create({ id: 'good' });
    await store.create({ id: 'bad' });
    await store.append('bad', [messageEvent('a'), messageEvent('b')]);
    await h.corrupt('bad');
    await assert.rejects(store.get('bad'), /bad/);
    await assert.rejects(store.append('bad', [messageEvent('c')]), /bad/);
    await assert.rejects(store.get('bad'), /bad/);
    await store.append('good', [messageEvent('fine')]);
    assert.equal((await store.get('good'))?.events.length, 1);
    assert.ok((await store.list()).some((s) => s.id === 'good'));
    assert.equal(await store.delete('bad'), true);
    assert.equal(await store.get('bad'), undefined);
  });

  return cases;
}

async function takeLease(
  store: SessionStore,
  id: string,
  holder: string,
  ttlMs = 10_000,
): Promise<SessionLease> {
  const answer = await store.lease(id, { holder, ttlMs });
  assert.ok('lease' in answer, `expected the lease of ${id}, got ${JSON.stringify(answer)}`);
  return answer.lease;
}

// Stores that serialise drop keys whose value is undefined; those are equal to absent ones.
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function text(event: AgentEvent): unknown {
  return event.type === 'message' ? event.message.content : event.type;
}
