import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { durationMs, FILE_MEMORY_BACKEND, FileSessionStore, fileMemoryBackend } from '../src/index.js';
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

  it('reads the YAML retention fields and applies them', async () => {
    const root = await tempDir();
    const store = fileMemoryBackend({ retention: { max_sessions: 1, max_age: '30d' } }, { root });
    await store.create({ id: 'one' });
    await store.create({ id: 'two' });
    expect((await store.list()).map((s) => s.id)).toEqual(['two']);
    expect(durationMs('30d')).toBe(30 * 86_400_000);
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs(1500)).toBe(1500);
  });

  it('refuses a path outside the project and unreadable retention values', async () => {
    const root = await tempDir();
    expect(() => fileMemoryBackend({ path: '../elsewhere' }, { root })).toThrow(/outside the project folder/);
    expect(() => fileMemoryBackend({ retention: { max_age: 'soon' } }, { root })).toThrow(
      /retention.max_age/,
    );
    expect(() => fileMemoryBackend({ retention: { max_sessions: 0 } }, { root })).toThrow(
      /retention.max_sessions/,
    );
  });
});
