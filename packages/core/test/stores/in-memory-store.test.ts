import { describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '../../src/index.js';
import { sessionStoreConformance } from '../../src/testing/index.js';

describe('InMemorySessionStore conformance', () => {
  for (const c of sessionStoreConformance(async () => ({ store: new InMemorySessionStore() })))
    it(c.name, c.run);
  // Its own pages (the suite's listing case then forbids reading every summary), not `list` paged.
  it('pages itself', () => expect(InMemorySessionStore.prototype.listPage).toBeTypeOf('function'));
});
