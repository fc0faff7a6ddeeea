import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { messageEvent } from './support/events.js';
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
