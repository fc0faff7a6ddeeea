import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('the session index', () => {
  it('folds its journal into the snapshot once it grows, keeping every summary', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir, durable: false });
    for (let i = 0; i < 40; i++) await store.create({ id: `s${i}`, agent: 'bulk' });
    // Enough appends for the journal to outgrow its compaction threshold (256 KiB).
    for (let round = 0; round < 70; round++) {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => store.append(`s${i}`, [messageEvent(`r${round}`)])),
      );
    }
    await store.delete('s0');
    const snapshot = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'));
    expect(snapshot.generation).toBeGreaterThanOrEqual(1);
    expect((await stat(join(dir, 'index.jsonl'))).size).toBeLessThan(256 * 1024);
    for (const reader of [store, new FileSessionStore({ path: dir })]) {
      const listed = await reader.list();
      expect(listed).toHaveLength(39);
      expect(listed.every((s) => s.eventCount === 70 && s.agent === 'bulk')).toBe(true);
    }
  });

  it('creates and appends without leaving a lock or temp file behind', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    const made = await Promise.all(Array.from({ length: 30 }, () => store.create({ agent: 'a' })));
    await Promise.all(made.map((s) => store.append(s.id, [messageEvent('hi')])));
    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith('.lock') || n.endsWith('.tmp'))).toEqual([]);
    expect((await new FileSessionStore({ path: dir }).list()).map((s) => s.eventCount)).toEqual(
      made.map(() => 1),
    );
  });

  it('a line a fold carried over never overrides a newer line of the same session', async () => {
    const dir = await tempDir();
    const summary = (id: string, eventCount: number) => ({
      id,
      eventCount,
      paused: false,
      createdAt: 1,
      updatedAt: eventCount,
      bytes: 10 * eventCount,
    });
    await writeFile(
      join(dir, 'index.json'),
      `${JSON.stringify({ version: 1, generation: 2, sessions: [summary('a', 1), summary('b', 1)] })}\n`,
    );
    // After the fold: the writer of `a` put its newer summary, then the fold copied an older one;
    // `b`'s only change since the snapshot arrived as a copy, and counts.
    const lines = [
      { generation: 2 },
      { put: summary('a', 3) },
      { put: summary('a', 2), copied: true },
      { put: summary('b', 2), copied: true },
    ];
    await writeFile(join(dir, 'index.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const listed = await new FileSessionStore({ path: dir }).list();
    expect(Object.fromEntries(listed.map((s) => [s.id, s.eventCount]))).toEqual({ a: 3, b: 2 });
  });

  it('skips a half-written journal line left by a killed writer', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'a' });
    const { appendFile } = await import('node:fs/promises');
    await appendFile(join(dir, 'index.jsonl'), '{"put":{"id":"b","eventC');
    await store.create({ id: 'c' });
    expect((await new FileSessionStore({ path: dir }).list()).map((s) => s.id)).toEqual(['a', 'c']);
  });
});
