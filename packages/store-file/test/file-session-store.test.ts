import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import {
  FileSessionStore,
  InvalidSessionIdError,
  SessionExistsError,
  SessionNotFoundError,
} from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('FileSessionStore', () => {
  it('keeps one append-only log per session and rebuilds state from state deltas', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    const session = await store.create({ id: 's1', agent: 'triage', state: { company: 'Acme' } });
    expect(session).toMatchObject({ version: 1, id: 's1', agent: 'triage', events: [] });
    await store.append('s1', [messageEvent('one', { step: 1, company: null })]);
    const afterOne = await readFile(join(dir, 's1.jsonl'), 'utf8');
    await store.append('s1', [messageEvent('two', { step: 2 }), messageEvent('three')]);
    const text = await readFile(join(dir, 's1.jsonl'), 'utf8');
    // An append adds a line and leaves what was written before as it was.
    expect(text.startsWith(afterOne)).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ version: 1, id: 's1', agent: 'triage', events: [] });
    expect(
      lines.slice(1).map((l) => l.events.map((e: { message: { content: string } }) => e.message.content)),
    ).toEqual([['one'], ['two', 'three']]);
    // A fresh instance (as in another process) reads the same session.
    const again = await new FileSessionStore({ path: dir }).get('s1');
    expect(again?.state).toEqual({ step: 2 });
    expect(again?.events).toHaveLength(3);
    expect((await readdir(dir)).sort()).toEqual(['index.jsonl', 's1.jsonl']);
  });

  it('queues writes to one session within a process so none is lost', async () => {
    const store = new FileSessionStore({ path: await tempDir() });
    await store.create({ id: 'busy' });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => store.append('busy', [messageEvent(`m${i}`, { [`k${i}`]: i })])),
    );
    const session = await store.get('busy');
    expect(session?.events).toHaveLength(100);
    expect(Object.keys(session!.state)).toHaveLength(100);
  });

  it('stores child sessions and deletes them with their parent', async () => {
    const store = new FileSessionStore({ path: await tempDir() });
    await store.create({ id: 'parent', agent: 'triage' });
    await store.create({ id: 'child', agent: 'billing', parentId: 'parent', parentCallId: 'call_1' });
    await store.create({ id: 'grandchild', agent: 'ledger', parentId: 'child', parentCallId: 'call_2' });
    await store.create({ id: 'other' });
    expect((await store.list({ parentId: 'parent' })).map((s) => s.id)).toEqual(['child']);
    expect(await store.get('child')).toMatchObject({ parentId: 'parent', parentCallId: 'call_1' });
    expect(await store.delete('parent')).toBe(true);
    expect((await store.list()).map((s) => s.id)).toEqual(['other']);
    expect(await store.get('grandchild')).toBeUndefined();
    expect(await store.delete('parent')).toBe(false);
  });

  it('stores and clears the checkpoint of a paused invocation', async () => {
    const store = new FileSessionStore({ path: await tempDir() });
    await store.create({ id: 'p' });
    const checkpoint = { version: 1, agent: 'a', input: 'refund', messages: [], pending: [], toolCalls: [] };
    await store.setCheckpoint('p', checkpoint);
    expect((await store.get('p'))?.checkpoint).toEqual(checkpoint);
    expect((await store.list())[0]).toMatchObject({ id: 'p', paused: true });
    await store.setCheckpoint('p', undefined);
    expect((await store.get('p'))?.checkpoint).toBeUndefined();
    expect((await store.list())[0]).toMatchObject({ id: 'p', paused: false });
  });

  it('is a MemoryProvider keeping messages in the session file', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    expect(await store.load('default')).toEqual([]);
    await store.save('default', [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    expect(await new FileSessionStore({ path: dir }).load('default')).toHaveLength(2);
    await store.append('default', [messageEvent('logged')]);
    await store.clear('default');
    expect(await store.load('default')).toEqual([]);
    // Clearing the conversation keeps the event log.
    expect((await store.get('default'))?.events).toHaveLength(1);
  });

  it('rejects ids that could escape the folder and reports missing or taken ids', async () => {
    const store = new FileSessionStore({ path: await tempDir() });
    for (const id of ['../x', 'a/b', 'a\\b', '..', '.hidden', '', 'index', 'a..b']) {
      await expect(store.create({ id }), id).rejects.toBeInstanceOf(InvalidSessionIdError);
      await expect(store.get(id), id).rejects.toBeInstanceOf(InvalidSessionIdError);
    }
    await expect(store.append('missing', [messageEvent('x')])).rejects.toBeInstanceOf(SessionNotFoundError);
    await store.create({ id: 'taken' });
    await expect(store.create({ id: 'taken' })).rejects.toBeInstanceOf(SessionExistsError);
  });

  it('rebuilds a lost index from the session files', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'a', agent: 'x' });
    await store.append('a', [messageEvent('1'), messageEvent('2')]);
    await store.create({ id: 'b' });
    const { rm } = await import('node:fs/promises');
    await rm(join(dir, 'index.jsonl'));
    const listed = await new FileSessionStore({ path: dir }).list();
    expect(listed.map((s) => [s.id, s.eventCount])).toEqual([
      ['a', 2],
      ['b', 0],
    ]);
  });
});
