import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionStoreConformance } from '@agentctl/core/testing';
import { describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/index.js';

describe('FileSessionStore conformance', () => {
  const cases = sessionStoreConformance(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentctl-conformance-'));
    const store = new FileSessionStore({ path: dir, durable: false });
    return {
      store,
      reopen: () => new FileSessionStore({ path: dir, durable: false }),
      // A hand edit (or a disk error) that leaves the session's snapshot unreadable.
      corrupt: (id) => writeFile(store.fileOf(id), '{"version":1,"id":"'),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  });
  for (const c of cases) it(c.name, c.run, 30_000);
  // Its own pages (the suite's listing case then forbids reading every summary), not `list` paged.
  it('pages itself', () => expect(FileSessionStore.prototype.listPage).toBeTypeOf('function'));
});
