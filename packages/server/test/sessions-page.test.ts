import type { SessionStore, SessionSummary } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSource } from '../src/agent-source.js';
import { listen, stopAll } from './support/listen.js';

// Sessions as two stores list them: 7 of one agent (two written in the same millisecond), a child.
const summary = (id: string, updatedAt: number, parentId?: string): SessionSummary =>
  ({
    id,
    agent: 'echo',
    parentId,
    createdAt: updatedAt,
    updatedAt,
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
  it('answers every session, newest first, without a limit', async () => {
    const url = await listen({ source });
    const { sessions, nextCursor } = await get(`${url}/sessions`);
    expect(sessions.map((s) => s.id)).toEqual(['s5', 'tie-a', 'tie-b', 's3', 'child', 's2', 's1']);
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
    expect(seen).toEqual([['s5', 'tie-a'], ['tie-b', 's3'], ['child', 's2'], ['s1']]);
    // A limit that takes the rest exactly ends the list there.
    expect(await get(`${url}/sessions?limit=7`)).toEqual({ sessions: expect.any(Array) });
  });

  it('lists the child sessions of a session with parentId', async () => {
    const url = await listen({ source });
    expect((await get(`${url}/sessions?parentId=s3`)).sessions.map((s) => s.id)).toEqual(['child']);
  });

  it('refuses a bad limit or a cursor it did not hand out (400, naming the parameter)', async () => {
    const url = await listen({ source });
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=nope', 'cursor'],
      [`cursor=${Buffer.from('[1]').toString('base64url')}`, 'cursor'],
    ]) {
      const response = await fetch(`${url}/sessions?${query}`);
      expect(response.status, query).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('bad_request');
      expect(error.message.startsWith(`${param} must be`)).toBe(true);
    }
  });
});
