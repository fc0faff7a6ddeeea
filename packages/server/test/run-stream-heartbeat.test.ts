import {
  type ChatParams,
  createAgent,
  InMemorySessionStore,
  type ModelProvider,
  offline,
  type StreamEvent,
} from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { liveEvents } from '../../../test/support/live-events.js';
import type { AgentSource } from '../src/agent-source.js';
import type { QueuedRuns } from '../src/queued-runs.js';
import { listen, stopAll } from './support/listen.js';

// What waits until the test lets it go on.
function gateOf(): { gate: Promise<void>; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate, release };
}

// A model that says nothing until the test lets it: a run that is quiet for as long as needed.
function heldModel(): { provider: ModelProvider; release: () => void } {
  const { gate, release } = gateOf();
  const echo = offline('echo');
  const provider: ModelProvider = {
    name: 'offline',
    chat: (params) => echo.chat(params),
    async *stream(params: ChatParams): AsyncIterable<StreamEvent> {
      await gate;
      yield* echo.stream(params);
    },
  };
  return { provider, release };
}

async function quietSource(): Promise<{ source: AgentSource; release: () => void }> {
  const { provider, release } = heldModel();
  const agent = createAgent({ name: 'quiet', provider });
  const store = new InMemorySessionStore();
  const source: AgentSource = {
    list: () => [{ name: 'quiet' }],
    lease: (name) => (name === 'quiet' ? { agent, store, release: () => undefined } : undefined),
    stores: async () => [store],
  };
  return { source, release };
}

async function quietServer(): Promise<{ url: string; release: () => void }> {
  const { source, release } = await quietSource();
  return { url: await listen({ source, heartbeatMs: 20, corsOrigins: ['https://app.example'] }), release };
}

// From a page of another origin allowed by CORS, which may read the heartbeat header too.
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      origin: 'https://app.example',
    },
    body: JSON.stringify(body),
  });

const STREAMS: Array<[string, string, unknown]> = [
  ['the native API', '/agents/quiet/runs', { input: 'hello' }],
  [
    'the OpenAI chat completions',
    '/v1/chat/completions',
    { model: 'quiet', stream: true, messages: [{ role: 'user', content: 'hello' }] },
  ],
  ['the OpenAI responses', '/v1/responses', { model: 'quiet', stream: true, input: 'hello' }],
  [
    'A2A message/stream',
    '/a2a/quiet',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/stream',
      params: {
        message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] },
      },
    },
  ],
];

afterEach(stopAll);

describe('run streams while the run is quiet', () => {
  it.each(STREAMS)(
    '%s sends heartbeat comments, says how often, and still ends with the answer',
    async (_, path, body) => {
      const { url, release } = await quietServer();
      const response = await post(`${url}${path}`, body);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('x-agentctl-heartbeat-ms')).toBe('20');
      expect(response.headers.get('access-control-expose-headers')).toContain('x-agentctl-heartbeat-ms');
      const stream = liveEvents(response);
      try {
        // Two in a row: the stream keeps beating, not one comment at its start.
        const first = await stream.waitFor((e) => e.comment === 'heartbeat');
        await stream.waitFor((e) => e.comment === 'heartbeat', { from: stream.events.indexOf(first) + 1 });
        release();
        await stream.waitFor((e) => e.data.includes('hello') && e.comment === undefined);
        expect(await stream.finished).toBe('end');
        // Every block is a whole event or a whole comment: a heartbeat never lands inside an event.
        for (const event of stream.events)
          if (event.comment === undefined)
            expect(() => JSON.parse(event.data === '[DONE]' ? '0' : event.data)).not.toThrow();
      } finally {
        release();
        await stream.close();
      }
    },
  );

  it('a queued run’s events send heartbeat comments while the worker is quiet', async () => {
    const { gate, release } = gateOf();
    const queue: QueuedRuns = {
      enqueue: async () => ({ runId: 'r1', sessionId: 's1' }),
      exists: async () => true,
      // Nothing until the test lets the worker go on, then the run's end.
      async *follow() {
        await gate;
        yield { id: '1-0', end: { status: 'complete', output: 'done' } };
      },
      depth: async () => ({}),
    };
    const url = await listen({ source: (await quietSource()).source, queue, heartbeatMs: 20 });
    const response = await fetch(`${url}/runs/r1/events`);
    expect(response.headers.get('x-agentctl-heartbeat-ms')).toBe('20');
    const stream = liveEvents(response);
    try {
      const first = await stream.waitFor((e) => e.comment === 'heartbeat');
      await stream.waitFor((e) => e.comment === 'heartbeat', { from: stream.events.indexOf(first) + 1 });
      release();
      await stream.waitFor((e) => e.event === 'end');
      expect(await stream.finished).toBe('end');
    } finally {
      release();
      await stream.close();
    }
  });
});
