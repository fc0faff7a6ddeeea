import { describe, it } from 'vitest';
import { InMemorySessionStore } from '../../src/index.js';
import { sessionStoreConformance } from '../../src/testing/index.js';

describe('InMemorySessionStore conformance', () => {
  for (const c of sessionStoreConformance(async () => ({ store: new InMemorySessionStore() })))
    it(c.name, c.run);
});
