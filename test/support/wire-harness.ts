import type { ChatParams } from '@agentctl/core';
import { afterEach } from 'vitest';
import { type FakeReply, type FakeServer, startFakeServer } from './fake-server.js';

/**
 * Starts fake servers for the tests of one file, each closed after its test. `basePath` is where
 * the vendor's SDK expects the API on its base URL ('/v1' for OpenAI, '' for Anthropic and Gemini).
 * Call it at the top of a test file.
 */
export function fakeServers(basePath: string): (replies?: FakeReply[]) => Promise<FakeServer> {
  const open: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async (replies = []) => {
    const server = await startFakeServer(replies, basePath);
    open.push(server);
    return server;
  };
}

/** How a provider suite talks to its vendor's SDK: key, API path, model, and the factory under test. */
export interface WireSuite<O, P> {
  apiKey: string;
  basePath: string;
  model: string;
  create: (options: O) => P;
}

/**
 * The set-up the provider suites share: `setup(replies, extra)` makes the provider through its
 * real SDK against a fresh fake server (quick retries, a 5 s timeout; `extra` overrides them),
 * and `ask(content, extra)` is a one-message request to the suite's model. Call it at the top of a test file.
 */
export function wireHarness<O, P>(suite: WireSuite<O, P>) {
  const start = fakeServers(suite.basePath);
  return {
    async setup(replies: FakeReply[], extra: Partial<O> = {}): Promise<{ server: FakeServer; provider: P }> {
      const server = await start(replies);
      const provider = suite.create({
        apiKey: suite.apiKey,
        baseURL: server.url,
        retry: { maxAttempts: 4, initialDelayMs: 5, maxDelayMs: 5000 },
        timeout: 5000,
        ...extra,
      } as O);
      return { server, provider };
    },
    ask: (content: string, extra: Partial<ChatParams> = {}): ChatParams => ({
      model: suite.model,
      messages: [{ role: 'user', content }],
      ...extra,
    }),
  };
}
