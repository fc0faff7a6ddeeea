import { afterEach, describe, expect, it, vi } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { fakeServers } from '../../../test/support/wire-harness.js';
import { createAnthropicProvider } from '../src/index.js';
import { anthropicText } from './support/anthropic-wire.js';

const start = fakeServers('');
afterEach(() => {
  vi.restoreAllMocks();
});

describe("the SDK's deprecation warning", () => {
  it('is shown once per process, not on every request to a deprecated model', async () => {
    const server = await start([
      sse(anthropicText('one')),
      sse(anthropicText('two')),
      sse(anthropicText('three')),
    ]);
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
