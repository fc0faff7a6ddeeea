import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_MEMORY_BACKEND, FileSessionStore, fileMemoryBackend } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('fileMemoryBackend', () => {
  it('makes a store under the project root, .agentctl/sessions by default', async () => {
    const root = await tempDir();
    expect(FILE_MEMORY_BACKEND).toBe('file');
    const store = fileMemoryBackend({}, { root });
    expect(store).toBeInstanceOf(FileSessionStore);
    expect(store.path).toBe(join(root, '.agentctl', 'sessions'));
    expect(fileMemoryBackend({ path: 'var/chats' }, { root }).path).toBe(join(root, 'var', 'chats'));
    await store.save('default', [{ role: 'user', content: 'hi' }]);
    expect(await fileMemoryBackend({}, { root }).load('default')).toHaveLength(1);
  });

  it('applies the normalised retention of the definition', async () => {
    const root = await tempDir();
    const store = fileMemoryBackend({ retention: { maxSessions: 1, maxAgeMs: 30 * 86_400_000 } }, { root });
    await store.create({ id: 'one' });
    await store.create({ id: 'two' });
    expect((await store.list()).map((s) => s.id)).toEqual(['two']);
  });

  it('refuses a path outside the project and a retention it cannot apply', async () => {
    const root = await tempDir();
    expect(() => fileMemoryBackend({ path: '../elsewhere' }, { root })).toThrow(/outside the project folder/);
    expect(() => fileMemoryBackend({ retention: { maxSessions: 0 } }, { root })).toThrow(
      /retention.max_sessions/,
    );
  });
});
