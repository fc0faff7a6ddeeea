import { link, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { FileSessionStore, SessionIdClashError } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('session ids that differ only in case', () => {
  it('never read or append another session through its file where the disk ignores case', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'Bob' });
    await store.append('Bob', [messageEvent('private to Bob')]);
    // A hard link stands in for a disk that ignores case: bob.jsonl opens Bob's file.
    await link(join(dir, 'Bob.jsonl'), join(dir, 'bob.jsonl'));
    const before = await readFile(join(dir, 'Bob.jsonl'), 'utf8');

    const read = await store.get('bob').catch((error: unknown) => error);
    expect(read).toBeInstanceOf(SessionIdClashError);
    expect((read as Error).message).toMatch(/session id bob names the file of session Bob/);
    await expect(store.append('bob', [messageEvent('written as bob')])).rejects.toThrow(SessionIdClashError);

    expect(await readFile(join(dir, 'Bob.jsonl'), 'utf8')).toBe(before);
    expect((await store.get('Bob'))?.events.map((e) => e.type)).toEqual(['message']);
  });
});
