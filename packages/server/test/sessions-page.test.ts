import { InMemorySessionStore, type SessionStore, type SessionSummary } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSource } from '../src/agent-source.js';
import { listen, stopAll } from './support/listen.js';

// Third-party stores written before paging: they have `list` only.
// Sessions as two stores list them: 7 of one agent (two created in the same millisecond), a child.
// Updated in the reverse order of creation: the listing goes by creation, which no write changes.
const summary = (id: string, createdAt: number, parentId?: string): SessionSummary =>
  ({
    id,
    agent: 'echo',
    parentId,
    createdAt,
    updatedAt: 1000 - createdAt,
    eventCount: 1,
    paused: false,
  }) as SessionSummary;
const FIRST = [summary('s1', 100), summary('s2', 200), summary('s3', 300), summary('tie-b', 400)];
const SECOND = [summary('tie-a', 400), summary('s5', 500), summary('child', 250, 's3'), summary('s1', 100)];

function storeOf(sessions: SessionSummary[]): SessionStore {
  return {
    list: async (filter: { parentId?: string } = {}) =>
      sessions.filter((s) => filter.parentId === undefined || s.parentId === filter.parentId),
  } as unknown as SessionStore;
}

const source: AgentSource = {
  list: () => [],
  lease: () => undefined,
  stores: async () => [storeOf(FIRST), storeOf(SECOND)],
};

type Page = { sessions: SessionSummary[]; nextCursor?: string };
const get = async (url: string): Promise<Page> => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
};

afterEach(stopAll);

describe('GET /sessions', () => {
  it('answers every session, newest first by creation (ties by id, last first), without a limit', async () => {
    const url = await listen({ source });
    const { sessions, nextCursor } = await get(`${url}/sessions`);
    expect(sessions.map((s) => s.id)).toEqual(['s5', 'tie-b', 'tie-a', 's3', 'child', 's2', 's1']);
    expect(nextCursor).toBeUndefined();
  });

  it('pages with limit and cursor: each session once, in order, the last page without a cursor', async () => {
    const url = await listen({ source });
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await get(
        `${url}/sessions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(page.sessions.map((s) => s.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined && seen.length < 10);
    expect(seen).toEqual([['s5', 'tie-b'], ['tie-a', 's3'], ['child', 's2'], ['s1']]);
    // A limit that takes the rest exactly ends the list there.
    expect(await get(`${url}/sessions?limit=7`)).toEqual({ sessions: expect.any(Array) });
  });

  it('lists the child sessions of a session with parentId', async () => {
    const url = await listen({ source });
    expect((await get(`${url}/sessions?parentId=s3`)).sessions.map((s) => s.id)).toEqual(['child']);
  });

  it('refuses a bad limit, a cursor it did not hand out, a bad parentId, an unknown or repeated parameter (400, naming it)', async () => {
    const url = await listen({ source });
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=nope', 'cursor'],
      [`cursor=${Buffer.from('[1]').toString('base64url')}`, 'cursor'],
      // Cursors edited by hand: an id outside the alphabet (non-ASCII, a NUL), a time past any date.
      [`cursor=${Buffer.from(JSON.stringify([400, 'tié'])).toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify([400, 'a\u0000'])).toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify([1e300, 's1'])).toString('base64url')}`, 'cursor'],
      [`cursor=${encodeURIComponent('+/==')}`, 'cursor'],
      [`parentId=${encodeURIComponent('tié')}`, 'parentId'],
      ['parentId=a%00b', 'parentId'],
      ['parentId=', 'parentId'],
      // A misspelt or repeated parameter would otherwise answer every session, or one of two pages.
      ['limt=2', 'unknown parameter "limt"; did you mean `limit`?'],
      ['parentid=s3', 'unknown parameter "parentid"; did you mean `parentId`?'],
      ['page=2', 'unknown parameter "page" (GET /sessions takes limit, cursor, parentId)'],
      ['limit=2&limit=3', 'limit is given 2 times'],
    ]) {
      const response = await fetch(`${url}/sessions?${query}`);
      expect(response.status, query).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('bad_request');
      const start =
        param === 'parentId'
          ? 'parentId: invalid session id'
          : param.includes(' ')
            ? param
            : `${param} must be`;
      expect(error.message.startsWith(start), `${query}: ${error.message}`).toBe(true);
    }
  });
});

// A store that pages itself: `list` (every summary) must not be read for a page.
class PagingStore extends InMemorySessionStore {
  override list(): Promise<SessionSummary[]> {
    throw new Error('a page read every summary');
  }
}

async function pageAll(
  url: string,
  limit: number,
  between?: (page: number) => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const answer = await get(`${url}/sessions?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...answer.sessions.map((s) => s.id));
    cursor = answer.nextCursor;
    if (cursor === undefined) return ids;
    await between?.(page);
  }
  throw new Error('no last page');
}

describe('GET /sessions on stores that page themselves', () => {
  it('reads a page from each store, not every summary, and merges them in order', async () => {
    const one = new PagingStore();
    const two = new PagingStore();
    for (let i = 0; i < 30; i++) await (i % 2 ? one : two).create({ id: `s${String(i).padStart(2, '0')}` });
    const url = await listen({ source: { ...source, stores: async () => [one, two] } });
    const ids = await pageAll(url, 7);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    const all = [
      ...(await InMemorySessionStore.prototype.list.call(one)),
      ...(await InMemorySessionStore.prototype.list.call(two)),
    ];
    expect(ids).toEqual(
      all.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((s) => s.id),
    );
  });

  it('neither skips nor repeats a session when sessions are written, created or deleted between pages', async () => {
    const store = new PagingStore();
    for (let i = 0; i < 20; i++) await store.create({ id: `old${String(i).padStart(2, '0')}` });
    const url = await listen({ source: { ...source, stores: async () => [store] } });
    const first = await get(`${url}/sessions?limit=5`);
    const shown = new Set(first.sessions.map((s) => s.id));
    const rest: string[] = [];
    let cursor = first.nextCursor;
    let deleted: string | undefined;
    for (let page = 0; cursor !== undefined; page++) {
      // Between pages: a new session, a write to every session not shown yet, and one of them gone.
      await store.create({ id: `new${page}` });
      for (const s of await InMemorySessionStore.prototype.list.call(store))
        if (!shown.has(s.id) && !s.id.startsWith('new')) await store.append(s.id, []);
      if (page === 1) {
        deleted = (await store.listPage({ limit: 1, after: parseCursor(cursor) })).sessions[0]!.id;
        await store.delete(deleted);
      }
      const answer = await get(`${url}/sessions?limit=5&cursor=${cursor}`);
      rest.push(...answer.sessions.map((s) => s.id));
      cursor = answer.nextCursor;
    }
    const listed = [...shown, ...rest];
    expect(new Set(listed).size).toBe(listed.length);
    // One created in the very millisecond of a page's last session, its id sorting below, may follow.
    expect(listed.filter((id) => !id.startsWith('new')).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `old${String(i).padStart(2, '0')}`).filter((id) => id !== deleted),
    );
  });

  it('pages the children of a session', async () => {
    const store = new PagingStore();
    await store.create({ id: 'parent' });
    for (let i = 0; i < 5; i++)
      await store.create({ id: `c${i}`, parentId: 'parent', parentCallId: `call${i}` });
    await store.create({ id: 'other' });
    const url = await listen({ source: { ...source, stores: async () => [store] } });
    const first = await get(`${url}/sessions?parentId=parent&limit=3`);
    const second = await get(`${url}/sessions?parentId=parent&limit=3&cursor=${first.nextCursor}`);
    expect([...first.sessions, ...second.sessions].map((s) => s.id).sort()).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
    expect(second.nextCursor).toBeUndefined();
  });
});

function parseCursor(text: string): { createdAt: number; id: string } {
  const [createdAt, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as [number, string];
  return { createdAt, id };
}
