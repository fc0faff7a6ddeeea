import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentError, ModelProvider } from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { createGoogleProvider } from '../packages/provider-google/src/index.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeReply, type FakeServer, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

// A session kept for weeks outgrows the model's context window, and without `max_history` every
// turn sends all of it: each API refuses with a 400 of its own words, which said nothing of what
// the user can do about it.

const HINT =
  "(the conversation no longer fits the model's context window: the agent's `max_history` bounds what is sent, and the session keeps all of it)";

const OPENAI_OVERFLOW: FakeReply = {
  status: 400,
  json: {
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
};
const ANTHROPIC_OVERFLOW: FakeReply = {
  status: 400,
  json: {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'prompt is too long: 210412 tokens > 200000 maximum' },
  },
};
const GEMINI_OVERFLOW: FakeReply = {
  status: 400,
  json: {
    error: {
      code: 400,
      message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      status: 'INVALID_ARGUMENT',
    },
  },
};
const OTHER_400: FakeReply = {
  status: 400,
  json: { error: { message: "Invalid value for 'temperature'.", type: 'invalid_request_error', code: null } },
};

const RETRY = { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 };
const WIRES: [string, string, (url: string) => ModelProvider, FakeReply][] = [
  [
    'openai',
    '/v1',
    (url) => createOpenAIProvider({ apiKey: 'sk-ctx-0123', baseURL: url, retry: RETRY }),
    OPENAI_OVERFLOW,
  ],
  [
    'anthropic',
    '',
    (url) => createAnthropicProvider({ apiKey: 'sk-ctx-0123', baseURL: url, retry: RETRY }),
    ANTHROPIC_OVERFLOW,
  ],
  [
    'google',
    '',
    (url) => createGoogleProvider({ apiKey: 'sk-ctx-0123', baseURL: url, retry: RETRY }),
    GEMINI_OVERFLOW,
  ],
];

async function failureOf(provider: ModelProvider): Promise<AgentError> {
  for await (const event of provider.stream({
    model: 'any-model',
    messages: [{ role: 'user', content: 'hi' }],
  }))
    if (event.type === 'error') return event.error;
  throw new Error('the call did not fail');
}

describe('a request longer than the context window', () => {
  it.each(WIRES)(
    '%s: the error says so and names max_history, not retried',
    async (_name, base, make, reply) => {
      const server = await startFakeServer([reply], base);
      servers.push(server);
      const error = await failureOf(make(server.url));
      expect(server.requests).toHaveLength(1);
      expect(error.code).toBe('PROVIDER_ERROR');
      expect(error.message).toMatch(/failed with HTTP 400: .+/);
      expect(error.message.endsWith(HINT)).toBe(true);
    },
  );

  it('another 400 gets no such hint', async () => {
    const server = await startFakeServer([OTHER_400], '/v1');
    servers.push(server);
    const error = await failureOf(createOpenAIProvider({ apiKey: 'sk-ctx-0123', baseURL: server.url }));
    expect(error.message).toContain("Invalid value for 'temperature'.");
    expect(error.message).not.toContain('context window');
  });

  it('run --session prints it, exit 1', async () => {
    const server = await startFakeServer([OPENAI_OVERFLOW], '/v1');
    servers.push(server);
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': `kind: agent\nname: a\nmodel: remote\n---\nkind: model\nname: remote\nprovider: openai\nmodel: gpt-4.1-mini\nbase_url: ${server.url}\napi_key: sk-ctx-0123\n`,
    });
    const run = await agentctl(['run', 'a', 'one more', '--session', 'weeks'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('failed with HTTP 400: This model');
    expect(run.stderr).toContain(HINT);
  });
});
