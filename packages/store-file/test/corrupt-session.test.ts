import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { CorruptSessionError, FileSessionStore } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('a corrupt session file', () => {
  it('is reported by get with the file named, marked by list, and left alone by append', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'good' });
    await store.create({ id: 'bad', agent: 'x' });
    await store.append('bad', [messageEvent('a'), messageEvent('b')]);
    const file = join(dir, 'bad.jsonl');
    // Cut inside the snapshot line: no line of the log after it can be trusted.
    await truncate(file, 20);

    const error = await store.get('bad').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptSessionError);
    expect((error as CorruptSessionError).path).toBe(file);
    expect((error as Error).message).toContain(file);

    const listed = await store.list({ verify: true });
    expect(listed.find((s) => s.id === 'good')?.corrupt).toBeUndefined();
    expect(listed.find((s) => s.id === 'bad')?.corrupt).toContain(file);
    // Without verify, list answers from the index and does not fail either.
    expect((await store.list()).map((s) => s.id)).toEqual(['good', 'bad']);

    const before = await readFile(file, 'utf8');
    await expect(store.append('bad', [messageEvent('c')])).rejects.toBeInstanceOf(CorruptSessionError);
    expect(await readFile(file, 'utf8')).toBe(before);
    // It can still be removed.
    expect(await store.delete('bad')).toBe(true);
    expect((await store.list({ verify: true })).map((s) => s.id)).toEqual(['good']);
  });

  it('names an unsupported layout version', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'future' });
    const file = join(dir, 'future.jsonl');
    const data = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, `${JSON.stringify({ ...data, version: 2 })}\n`);
    await expect(store.get('future')).rejects.toThrow(
      /future\.jsonl is corrupt: line 1: unsupported version 2/,
    );
  });

  it('a damaged record in the middle of the log is corruption, named with its line and byte offset', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'm' });
    await store.append('m', [messageEvent('a')]);
    await store.append('m', [messageEvent('b')]);
    const file = join(dir, 'm.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[1] = `${lines[1]!.slice(0, 10)}`;
    await writeFile(file, lines.join('\n'));
    await expect(new FileSessionStore({ path: dir }).get('m')).rejects.toThrow(
      /m\.jsonl is corrupt: line 2 \(byte \d+\): invalid JSON/,
    );
    await expect(new FileSessionStore({ path: dir }).get('m')).rejects.toMatchObject({ line: 2 });
  });

  it('an event edited out of shape is corruption at its line, not a crash of whoever reads it', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'e' });
    await store.append('e', [messageEvent('a')]);
    await store.append('e', [messageEvent('b')]);
    const file = join(dir, 'e.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const record = JSON.parse(lines[2]!);
    delete record.events[0].branch;
    lines[2] = JSON.stringify(record);
    await writeFile(file, lines.join('\n'));
    await expect(new FileSessionStore({ path: dir }).get('e')).rejects.toThrow(
      /e\.jsonl is corrupt: line 3 \(byte \d+\): a message event's "branch" is missing or not a string/,
    );
    record.events[0].branch = 'b';
    record.events[0].message = { role: 'tool', content: 'x' };
    lines[2] = JSON.stringify(record);
    await writeFile(file, lines.join('\n'));
    await expect(new FileSessionStore({ path: dir }).get('e')).rejects.toThrow(
      /line 3 \(byte \d+\): a tool message has no "toolCallId"/,
    );
  });

  it('a corrupt index is rebuilt from the session files', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'a' });
    await store.reindex();
    await writeFile(join(dir, 'index.json'), '{"version":1,"generation":1,"sess');
    expect((await new FileSessionStore({ path: dir }).list()).map((s) => s.id)).toEqual(['a']);
  });
});
