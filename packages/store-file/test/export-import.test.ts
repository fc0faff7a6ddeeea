import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { FileSessionStore, InvalidExportError, SessionExistsError } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

describe('export and import', () => {
  it('round-trips a session with its child sessions, state, messages and checkpoint', async () => {
    const source = new FileSessionStore({ path: await tempDir() });
    await source.create({ id: 'root', agent: 'triage' });
    await source.append('root', [messageEvent('hi', { queue: 'billing' })]);
    await source.save('root', [{ role: 'user', content: 'hi' }]);
    await source.setCheckpoint('root', { version: 1, pending: ['x'] });
    await source.create({ id: 'kid', agent: 'billing', parentId: 'root', parentCallId: 'c1' });
    await source.append('kid', [messageEvent('refund done')]);
    await source.create({ id: 'unrelated' });

    const exported = JSON.parse(JSON.stringify(await source.exportSession('root')));
    expect(exported.children.map((c: { session: { id: string } }) => c.session.id)).toEqual(['kid']);

    const target = new FileSessionStore({ path: await tempDir() });
    expect(await target.importSession(exported)).toBe('root');
    expect(await target.get('root')).toEqual(await source.get('root'));
    expect(await target.get('kid')).toEqual(await source.get('kid'));
    expect((await target.list()).map((s) => s.id)).toEqual(['root', 'kid']);
    expect(await target.exportSession('root')).toEqual(exported);

    await expect(target.importSession(exported)).rejects.toBeInstanceOf(SessionExistsError);
  });

  it('rejects data that is not an export, naming the problem', async () => {
    const store = new FileSessionStore({ path: await tempDir() });
    await expect(store.importSession({ format: 'other' })).rejects.toBeInstanceOf(InvalidExportError);
    await expect(
      store.importSession({ format: 'agentctl-session', version: 1, session: { id: 'x' }, children: [] }),
    ).rejects.toThrow(/session: unsupported version/);
    await expect(
      store.importSession({
        format: 'agentctl-session',
        version: 1,
        session: { version: 1, id: '../evil', state: {}, events: [], createdAt: 1, updatedAt: 1 },
        children: [],
      }),
    ).rejects.toThrow(/invalid session id/);
  });

  it('refuses an export holding one id twice before writing any of it', async () => {
    const store = new FileSessionStore({ path: await tempDir() });
    const session = (id: string, parentId?: string) => ({
      version: 1,
      id,
      parentId,
      state: {},
      events: [],
      createdAt: 1,
      updatedAt: 1,
    });
    const twice = {
      format: 'agentctl-session',
      version: 1,
      session: session('root'),
      children: [
        { format: 'agentctl-session', version: 1, session: session('kid', 'root'), children: [] },
        {
          format: 'agentctl-session',
          version: 1,
          session: session('other', 'root'),
          children: [
            { format: 'agentctl-session', version: 1, session: session('kid', 'other'), children: [] },
          ],
        },
      ],
    };
    await expect(store.importSession(twice)).rejects.toThrow('export: session id "kid" appears twice');
    expect(await store.list()).toEqual([]);
  });
});
