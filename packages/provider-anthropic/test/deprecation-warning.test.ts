import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAnthropicProvider } from '../src/index.js';
import { anthropicText, sse } from './support/anthropic-wire.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

describe("the SDK's deprecation warning", () => {
  it('is shown once per process, not on every request to a deprecated model', async () => {
    server = await startFakeServer(
      [sse(anthropicText('one')), sse(anthropicText('two')), sse(anthropicText('three'))],
      '',
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // @anthropic-ai/sdk 1.x lists claude-sonnet-4-5 as deprecated and warns in every messages.create.
    const provider = createAnthropicProvider({ apiKey: 'sk-ant-dep-0123456789', baseURL: server.url });
    for (const _ of [1, 2, 3]) {
      await provider.chat({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
    }
    expect(server.requests).toHaveLength(3);
    const deprecations = warn.mock.calls.filter((args) =>
      String(args[0]).includes("'claude-sonnet-4-5' is deprecated"),
    );
    expect(deprecations).toHaveLength(1);
  });
});
