import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { messageEvent } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

// Slow by nature (it writes 566 MB; about 10 s here): the only test that makes a log line that
// could never be one string, which only V8's limit can tell.
describe('importing a session over 512 MB of JSON', () => {
  it('writes it (as a snapshot and records) where one line of it could never be made', async () => {
    const dir = await tempDir();
    const store = new FileSessionStore({ path: dir });
    // Six events sharing one 90 MB string: 566 MB of JSON, while the test holds 90 MB.
    const big = 'x'.repeat(90 * 1024 * 1024);
    const events = Array.from({ length: 6 }, () => messageEvent(big));
    const session = { id: 'huge', version: 1, state: {}, events, createdAt: 1, updatedAt: 2 };
    await store.importSession({ format: 'agentctl-session', version: 1, session, children: [] });
    const [entry] = await store.list();
    expect(entry).toMatchObject({ id: 'huge', eventCount: 6, updatedAt: 2 });
    const file = join(dir, 'huge.jsonl');
    expect((await stat(file)).size).toBeGreaterThan(6 * big.length);
    // Line 1 is the session without its events; the events follow as records.
    const handle = await open(file);
    const { buffer } = await handle.read({ buffer: Buffer.alloc(200), position: 0 });
    await handle.close();
    const first = buffer.toString('utf8', 0, buffer.indexOf('\n'));
    expect(JSON.parse(first)).toMatchObject({ id: 'huge', events: [], updatedAt: 2 });
    expect(buffer.toString('utf8', first.length + 1).startsWith('{"t":2,"events":[{"type":"message"')).toBe(
      true,
    );
  }, 60_000);
});
