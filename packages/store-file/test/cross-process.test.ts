import { type ChildProcess, execFile, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentEvent } from '@agentctl/core';
import { messageEvent } from '@agentctl/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { buildStoreFile, fixture } from './support/build.js';
import { tempDir } from './support/temp-dir.js';

const run = promisify(execFile);

beforeAll(() => buildStoreFile(), 120_000);

/** Event ids of one writer's tag, in file order. */
function indicesOf(events: AgentEvent[], tag: string): number[] {
  return events.filter((e) => e.invocationId === tag).map((e) => Number(e.id.slice(tag.length + 1)));
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** The index parses, and every session log reads as a valid session (a cut-short last line is allowed). */
async function assertAllFilesValid(dir: string): Promise<void> {
  const store = new FileSessionStore({ path: dir });
  for (const name of await readdir(dir)) {
    if (name === 'index.json') expect(() => JSON.parse(readFileSync(join(dir, name), 'utf8'))).not.toThrow();
    else if (name.endsWith('.jsonl') && name !== 'index.jsonl') {
      await expect(store.get(name.slice(0, -6)), name).resolves.toBeDefined();
    }
  }
}

/** Starts a process holding the lease of `id`; resolves once it holds it. */
function holdLease(dir: string, id: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture('lease-holder.mjs'), dir, id], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) =>
      chunk.toString().startsWith('held') ? resolve(child) : reject(new Error(chunk.toString())),
    );
    child.once('error', reject);
  });
}

describe('FileSessionStore across processes', () => {
  it('a lease held by a live process is refused, one held by a killed process is free at once', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    const holder = await holdLease(dir, 'leased');
    const answer = await store.lease('leased', { holder: 'me', ttlMs: 10_000 });
    expect(answer).toMatchObject({
      busy: { holder: `holder ${holder.pid}`, where: expect.stringContaining(`pid ${holder.pid}`) },
    });
    holder.kill('SIGKILL');
    await exited(holder);
    // The holder never released it and its lease has 60 s left: its death frees it.
    const taken = await store.lease('leased', { holder: 'me', ttlMs: 10_000 });
    expect('lease' in taken).toBe(true);
  }, 60_000);

  it('continues a conversation started by another process', async () => {
    const dir = await tempDir();
    const turns: string[] = [];
    for (const text of ['hello', 'again', 'bye']) {
      const { stdout } = await run(process.execPath, [fixture('continue.mjs'), dir, 'chat-1', text]);
      turns.push(stdout.trim());
    }
    // Each process saw the messages the previous ones saved.
    expect(turns).toEqual(['2', '4', '6']);
    const session = await new FileSessionStore({ path: dir }).get('chat-1');
    expect(session?.messages?.map((m) => m.content)).toEqual([
      'hello',
      'you said hello (turn 1)',
      'again',
      'you said again (turn 2)',
      'bye',
      'you said bye (turn 3)',
    ]);
    expect(session?.events.map((e) => e.id)).toEqual([
      'hello-in',
      'hello-out',
      'again-in',
      'again-out',
      'bye-in',
      'bye-out',
    ]);
    expect(session?.state).toEqual({ turns: 3 });
  }, 60_000);

  it('loses no event when two processes append 200 events each to one session', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    await store.create({ id: 'shared', agent: 'writer' });
    await Promise.all(
      ['a', 'b'].map((tag) => run(process.execPath, [fixture('writer.mjs'), dir, 'shared', '200', tag])),
    );
    const session = await store.get('shared');
    expect(session?.events).toHaveLength(400);
    const range = Array.from({ length: 200 }, (_, i) => i);
    // Each writer's events are all there, in its own order: the second writer saw the first's events.
    expect(indicesOf(session!.events, 'a')).toEqual(range);
    expect(indicesOf(session!.events, 'b')).toEqual(range);
    expect(session?.state).toEqual({ a: 199, b: 199 });
    const [summary] = await store.list();
    expect(summary).toMatchObject({ id: 'shared', eventCount: 400 });
    await assertAllFilesValid(dir);
  }, 120_000);

  it('keeps the index complete when four processes create and append at once', async () => {
    const dir = await tempDir();
    const tags = ['p0', 'p1', 'p2', 'p3'];
    await Promise.all(tags.map((tag) => run(process.execPath, [fixture('creator.mjs'), dir, tag, '60'])));
    const listed = await new FileSessionStore({ path: dir }).list();
    expect(listed).toHaveLength(240);
    for (const s of listed) expect(s.eventCount, s.id).toBe(Number(s.id.split('-')[1]) % 3);
    await assertAllFilesValid(dir);
  }, 60_000);

  it('keeps the index complete when its journal is folded while other processes write to it', async () => {
    const dir = await tempDir();
    const tags = ['f0', 'f1', 'f2', 'f3'];
    // 4 × 400 sessions: over 2,000 journal lines, so the journal outgrows 256 KiB (and the
    // snapshot) several times, and each fold runs while the other processes append lines unlocked.
    await Promise.all(tags.map((tag) => run(process.execPath, [fixture('creator.mjs'), dir, tag, '400'])));
    const snapshot = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    expect(snapshot.generation).toBeGreaterThanOrEqual(1);
    const listed = await new FileSessionStore({ path: dir }).list();
    expect(listed).toHaveLength(1600);
    for (const s of listed) expect(s.eventCount, s.id).toBe(Number(s.id.split('-')[1]) % 3);
    expect((await readdir(dir)).filter((n) => n.endsWith('.lock'))).toEqual([]);
  }, 120_000);

  it('keeps every file valid and continuable through 50 writers killed with SIGKILL', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    const ids = ['k0', 'k1', 'k2'];
    for (const id of ids) await store.create({ id });
    const written = new Map<string, number>();
    for (let n = 0; n < 50; n++) {
      const id = ids[n % ids.length]!;
      const tag = `run${n}`;
      const child = fork(fixture('writer.mjs'), [dir, id, '100000', tag], { stdio: 'ignore', execArgv: [] });
      // Kill at a random moment: before the first append on some runs, in the middle of writing on others.
      const delay = Math.random() * 40;
      const killAt = n % 2 === 0 ? Promise.resolve() : new Promise((r) => child.once('message', r));
      await killAt;
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited(child);
      written.set(tag, 0);
      await assertAllFilesValid(dir);
    }
    // Continue every session in this process: dead writers' locks are recovered.
    for (const id of ids) await store.append(id, [messageEvent(`after the crashes ${id}`)]);
    // And with them whatever a writer killed while taking one left beside them.
    expect((await readdir(dir)).filter((name) => /^k\d\.lock/.test(name))).toEqual([]);
    let fromWriters = 0;
    for (const id of ids) fromWriters += (await store.get(id))!.events.length;
    // Every other writer was killed only after its first append finished.
    expect(fromWriters).toBeGreaterThanOrEqual(25);
    const listed = new Map((await store.list({ verify: true })).map((s) => [s.id, s]));
    for (const id of ids) {
      const session = (await store.get(id))!;
      expect(session.events.at(-1)?.message).toEqual({
        role: 'assistant',
        content: `after the crashes ${id}`,
      });
      expect(listed.get(id)).toMatchObject({ eventCount: session.events.length });
      expect(listed.get(id)?.corrupt).toBeUndefined();
      // Every append either happened completely or not at all: each writer's events have no gap.
      for (const tag of written.keys()) {
        const indices = indicesOf(session.events, tag);
        expect(indices).toEqual(indices.map((_, i) => i));
      }
    }
    await assertAllFilesValid(dir);
  }, 180_000);
});
