import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('retention', () => {
  it('keeps at most maxSessions top-level sessions, removing the least recently updated first', async () => {
    const store = new FileSessionStore({ path: await tempDir(), retention: { maxSessions: 3 } });
    for (const id of ['s1', 's2', 's3']) {
      await store.create({ id });
      await new Promise((r) => setTimeout(r, 5));
    }
    await store.create({ id: 's1-child', parentId: 's1' });
    await store.setCheckpoint('s1', { touched: true }); // s1 is now the most recently updated
    await store.create({ id: 's4' });
    await new Promise((r) => setTimeout(r, 5));
    await store.create({ id: 's5' });
    expect((await store.list()).map((s) => s.id).sort()).toEqual(['s1', 's1-child', 's4', 's5']);
  });

  it('removes sessions older than maxAgeMs with their child sessions', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir, retention: { maxAgeMs: 60_000 } });
    await store.create({ id: 'old' });
    await store.create({ id: 'old-child', parentId: 'old' });
    await store.create({ id: 'recent' });
    // Age "old" by rewriting its snapshot line as the documented layout allows, then rebuild the index.
    const file = join(dir, 'old.jsonl');
    const data = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, `${JSON.stringify({ ...data, updatedAt: Date.now() - 120_000 })}\n`);
    await store.reindex();
    await store.create({ id: 'new' });
    expect((await store.list()).map((s) => s.id).sort()).toEqual(['new', 'recent']);
  });

  it('spares a session a run holds, and removes it once the run let go', async () => {
    const store = new FileSessionStore({ path: await tempDir(), retention: { maxSessions: 1 } });
    await store.create({ id: 'running' });
    const held = await store.lease('running', { holder: 'invocation 1', ttlMs: 60_000 });
    if (!('lease' in held)) throw new Error('the lease was not granted');
    await store.create({ id: 'next' });
    expect((await store.list()).map((s) => s.id).sort()).toEqual(['next', 'running']);
    await store.releaseLease(held.lease);
    await store.create({ id: 'last' });
    expect((await store.list()).map((s) => s.id)).toEqual(['last']);
  });
});
