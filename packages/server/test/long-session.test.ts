import type { AgentEvent, Session, SessionStore } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import type { AgentSource } from '../src/agent-source.js';
import { createApp } from '../src/create-app.js';

describe('GET /sessions/:id of a session over 512 MB of JSON', () => {
  // Six events sharing one 90 MB string: 566 MB of JSON, while the test holds about 90 MB. The
  // string's character appears nowhere else, so the answer read without it is small JSON.
  const big = '~'.repeat(90 * 1024 * 1024);
  const events = Array.from(
    { length: 6 },
    (_, i): AgentEvent => ({
      id: `inv.0.${i}`,
      invocationId: 'inv',
      branch: 'triage',
      timestamp: 1,
      author: 'triage',
      type: 'tool_result',
      callId: `c${i}`,
      name: 'dump',
      content: big,
      isError: false,
      duration: 1,
    }),
  );
  const session: Session = {
    id: 'huge',
    version: 1,
    agent: 'triage',
    state: {},
    events,
    createdAt: 1,
    updatedAt: 2,
  };
  const store = {
    get: async (id: string) => (id === 'huge' ? session : undefined),
  } as unknown as SessionStore;
  const source: AgentSource = { list: () => [], lease: () => undefined, stores: async () => [store] };

  it('answers it whole, an event at a time', async () => {
    const { app } = createApp({ source });
    const response = await app.request('/sessions/huge');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    let bytes = 0;
    let tildes = 0;
    let rest = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      // All of it is ASCII, read as latin1: several times faster than UTF-8 at this size.
      rest += Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)
        .toString('latin1')
        .replace(/~+/g, (run) => {
          tildes += run.length;
          return '';
        });
    }
    expect(bytes).toBeGreaterThan(512 * 1024 * 1024);
    expect(tildes).toBe(6 * big.length);
    const read = JSON.parse(rest) as Session & { paused: boolean; pending: unknown[] };
    expect(read).toEqual({
      ...session,
      events: events.map((e) => ({ ...e, content: '' })),
      paused: false,
      pending: [],
    });
  }, 60_000);
});
