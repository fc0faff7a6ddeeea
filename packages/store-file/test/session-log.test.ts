import { appendFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { parseLog } from '../src/session-log.js';
import { storedSessionLines } from '../src/stored-session.js';
import { tempDir } from './support/temp-dir.js';

const contents = (events: { type: string; message?: { content: unknown } }[] | undefined) =>
  events?.map((e) => e.message?.content);

describe('the append-only session log', () => {
  it('recovers from a last line cut short by a crash: read without it, cut off by the next append', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 't' });
    await store.append('t', [messageEvent('kept', { n: 1 })]);
    const file = join(dir, 't.jsonl');
    const whole = await readFile(file, 'utf8');
    // What a writer killed in the middle of its write leaves.
    await appendFile(file, '{"t":1,"events":[{"type":"message","id":"x","mess');
    const reader = new FileSessionStore({ path: dir });
    expect(contents((await reader.get('t'))?.events)).toEqual(['kept']);
    await reader.append('t', [messageEvent('next', { n: 2 })]);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith(whole)).toBe(true);
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toHaveLength(3);
    const session = await store.get('t');
    expect(contents(session?.events)).toEqual(['kept', 'next']);
    expect(session?.state).toEqual({ n: 2 });
    expect((await store.list({ verify: true }))[0]).toMatchObject({ id: 't', eventCount: 2 });
  });

  it('reads sessions of the one-file layout and migrates each on its first write', async () => {
    const dir = await tempDir();
    const old = {
      version: 1,
      id: 'legacy',
      agent: 'triage',
      state: { queue: 'billing' },
      events: [messageEvent('from before')],
      messages: [{ role: 'user', content: 'hi' }],
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
    };
    await writeFile(join(dir, 'legacy.json'), JSON.stringify(old));
    const store = new FileSessionStore({ path: dir });
    expect(await store.get('legacy')).toEqual(old);
    expect((await store.list()).map((s) => [s.id, s.eventCount])).toEqual([['legacy', 1]]);
    await expect(store.create({ id: 'legacy' })).rejects.toThrow(/already exists/);
    await store.append('legacy', [messageEvent('after', { queue: 'tech' })]);
    expect(await readdir(dir)).not.toContain('legacy.json');
    const session = await new FileSessionStore({ path: dir }).get('legacy');
    expect(contents(session?.events)).toEqual(['from before', 'after']);
    expect(session?.state).toEqual({ queue: 'tech' });
    expect(session?.messages).toEqual(old.messages);
    expect(await store.load('legacy')).toEqual(old.messages);
  });

  it('compacts superseded checkpoints and conversations into the snapshot, keeping the session whole', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir, durable: false });
    await store.create({ id: 'c' });
    const bulky = 'x'.repeat(4_000);
    for (let i = 0; i < 100; i++) {
      await store.append('c', [messageEvent(`m${i}`)]);
      await store.setCheckpoint('c', { round: i, bulky });
      await store.save('c', [{ role: 'user', content: `${i} ${bulky}` }]);
    }
    const { size } = await stat(join(dir, 'c.jsonl'));
    // 200 superseded records of 4 KB each would be 800 KB; compaction keeps the waste bounded.
    expect(size).toBeLessThan(250_000);
    const session = (await new FileSessionStore({ path: dir }).get('c'))!;
    expect(session.events).toHaveLength(100);
    expect(session.checkpoint).toEqual({ round: 99, bulky });
    expect(session.messages?.[0]?.content).toBe(`99 ${bulky}`);
    expect((await store.list())[0]).toMatchObject({ eventCount: 100, paused: true });
  });

  it('leaves no temp or lock file behind after creates, appends and leases', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await Promise.all(Array.from({ length: 5 }, (_, i) => store.create({ id: `s${i}` })));
    await Promise.all(Array.from({ length: 5 }, (_, i) => store.append(`s${i}`, [messageEvent('x')])));
    const answer = await store.lease('s0', { holder: 'me', ttlMs: 1_000 });
    if ('lease' in answer) await store.releaseLease(answer.lease);
    expect((await readdir(dir)).sort()).toEqual([
      'index.jsonl',
      's0.jsonl',
      's1.jsonl',
      's2.jsonl',
      's3.jsonl',
      's4.jsonl',
    ]);
  });
});

describe('a session too long for one line (an imported export over 512 MB)', () => {
  it('is written as a snapshot and records of its events, and reads back as it was', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'long', agent: 'a', state: { start: true } });
    await store.append(
      'long',
      Array.from({ length: 7 }, (_, i) =>
        messageEvent(`message ${i} ${'x'.repeat(i * 10)}`, { n: i, last: i }),
      ),
    );
    await store.setCheckpoint('long', { version: 1, pending: [] });
    const session = (await store.get('long'))!;
    // Records of at most 100 characters of events: one or two events each.
    const lines = [...storedSessionLines(session, 100)];
    expect(lines.length).toBeGreaterThan(4);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 'long', events: [], state: session.state });
    const copy = join(dir, 'copy.jsonl');
    await writeFile(copy, lines.join(''));
    const { session: read } = parseLog(await readFile(copy), copy);
    expect({ ...read, id: 'long' }).toEqual(session);
    // And a store goes on with it as with any log.
    await writeFile(join(dir, 'moved.jsonl'), lines.join('').replace('"id":"long"', '"id":"moved"'));
    await store.reindex();
    await store.append('moved', [messageEvent('after')]);
    const moved = (await store.get('moved'))!;
    expect(moved.events.map((e) => (e.type === 'message' ? e.message.content : e.type))).toEqual([
      ...session.events.map((e) => (e.type === 'message' ? e.message.content : e.type)),
      'after',
    ]);
    expect(moved.state).toEqual(session.state);
  });
});
