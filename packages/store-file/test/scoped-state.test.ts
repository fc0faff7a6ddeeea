import { link, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptSessionError, FileSessionStore, SessionStoreError } from '../src/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('shared state scopes on disk', () => {
  it('keeps app and user scopes in their own files, seen by a second store on the same folder', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-scopes-'));
    const first = new FileSessionStore({ path: dir });
    await first.updateScopedState('app', { 'app:theme': 'dark', 'app:gone': 1 });
    await first.updateScopedState('app', { 'app:gone': null });
    await first.updateScopedState('user:ada/../x', { 'user:lang': 'fr' });
    const second = new FileSessionStore({ path: dir });
    expect(await second.getScopedState('app')).toEqual({ 'app:theme': 'dark' });
    expect(await second.getScopedState('user:ada/../x')).toEqual({ 'user:lang': 'fr' });
    expect(await second.getScopedState('user:bob')).toEqual({});
  });

  it('keeps the scope of a user id of any length, one file per id, none beyond a file name', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-scopes-'));
    const store = new FileSessionStore({ path: dir });
    const long = 'a'.repeat(300);
    const wide = '\u{1F600}'.repeat(100);
    await store.updateScopedState(`user:${long}`, { 'user:n': 1 });
    await store.updateScopedState(`user:${long}b`, { 'user:n': 2 });
    await store.updateScopedState(`user:${wide}`, { 'user:n': 3 });
    const again = new FileSessionStore({ path: dir });
    expect(await again.getScopedState(`user:${long}`)).toEqual({ 'user:n': 1 });
    expect(await again.getScopedState(`user:${long}b`)).toEqual({ 'user:n': 2 });
    expect(await again.getScopedState(`user:${wide}`)).toEqual({ 'user:n': 3 });
    const names = await readdir(join(dir, 'scopes'));
    expect(names).toHaveLength(3);
    for (const name of names) expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
  });

  it("never reads or writes over another user's scope through one file where the disk ignores case", async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-scopes-'));
    const store = new FileSessionStore({ path: dir });
    await store.updateScopedState('user:Ada', { 'user:note': 'private to Ada' });
    const files = await readdir(join(dir, 'scopes'));
    const ada = files.find((name) => name.endsWith('.json')) as string;
    // A hard link stands in for a disk that ignores case: ada's file name opens Ada's file.
    await link(join(dir, 'scopes', ada), join(dir, 'scopes', ada.replace('Ada', 'ada')));
    const before = await readFile(join(dir, 'scopes', ada), 'utf8');
    await expect(store.getScopedState('user:ada')).rejects.toThrow(/names the file of scope user:Ada/);
    await expect(store.updateScopedState('user:ada', { 'user:note': 'x' })).rejects.toThrow(
      SessionStoreError,
    );
    expect(await readFile(join(dir, 'scopes', ada), 'utf8')).toBe(before);
  });

  it('loses no write when many updates race', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-scopes-'));
    const a = new FileSessionStore({ path: dir });
    const b = new FileSessionStore({ path: dir });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).updateScopedState('app', { [`app:k${i}`]: i })),
    );
    expect(Object.keys(await a.getScopedState('app'))).toHaveLength(40);
  });

  it('reports a damaged scope file by its path', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-scopes-'));
    const store = new FileSessionStore({ path: dir });
    await store.updateScopedState('app', { 'app:x': 1 });
    await writeFile(join(dir, 'scopes', 'app.json'), '{"version":1,"sta');
    await expect(store.getScopedState('app')).rejects.toBeInstanceOf(CorruptSessionError);
  });
});
