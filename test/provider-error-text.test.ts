import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentError, ModelProvider } from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { createGoogleProvider } from '../packages/provider-google/src/index.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeReply, type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

// What a proxy or gateway in front of the API answers: a whole web page, not the API's JSON.
const PAGE = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body { color: red }</style></head><body><h1>Bad Gateway</h1><p>${'The upstream server did not answer. '.repeat(150)}</p></body></html>`;
const pageReply = (status: number): FakeReply => ({
  status,
  body: PAGE,
  headers: { 'content-type': 'text/html' },
});

const WIRES: [string, string, (url: string) => ModelProvider][] = [
  [
    'openai',
    '/v1',
    (url) => createOpenAIProvider({ apiKey: 'sk-page-0123', baseURL: url, retry: { maxAttempts: 1 } }),
  ],
  [
    'anthropic',
    '',
    (url) => createAnthropicProvider({ apiKey: 'sk-page-0123', baseURL: url, retry: { maxAttempts: 1 } }),
  ],
  [
    'google',
    '',
    (url) => createGoogleProvider({ apiKey: 'sk-page-0123', baseURL: url, retry: { maxAttempts: 1 } }),
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

describe('an error page instead of the API', () => {
  it.each(WIRES)(
    '%s: the error names the status and the page title, not 5 KB of HTML',
    async (_name, base, make) => {
      const server = await startFakeServer([pageReply(502)], base);
      servers.push(server);
      const error = await failureOf(make(server.url));
      expect(error.code).toBe('PROVIDER_ERROR');
      expect(error.message).toMatch(/ model any-model failed with HTTP 502: HTML page: 502 Bad Gateway$/);
      expect(error.message.length).toBeLessThan(200);
    },
  );

  it('the CLI prints one short line for it, and the session keeps no page', async () => {
    const server = await startFakeServer([pageReply(500), pageReply(500)]);
    servers.push(server);
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: fast
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
api_key: sk-page-0123
retry: { max_attempts: 2, initial_delay: 1ms }
---
kind: agent
name: desk
model: fast
instruction: Answer briefly.
`,
    });
    const result = await agentctl(['run', 'desk', 'hi'], { cwd: dir, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(result.stderr).toContain(
      'error [PROVIDER_ERROR]: openai model gpt-4.1-mini failed with HTTP 500: HTML page: 502 Bad Gateway (after 2 attempts)\n',
    );
    expect(result.stderr).not.toContain('<');
    expect(result.stderr).not.toContain('upstream');
    const sessions = join(dir, '.agentctl/sessions');
    const stored = await Promise.all(
      (await readdir(sessions)).map((file) => readFile(join(sessions, file), 'utf8')),
    );
    expect(stored.join('')).toContain('HTML page: 502 Bad Gateway');
    expect(stored.join('')).not.toContain('upstream');
  });
});

describe('error texts that say little', () => {
  it('a huge JSON error message is cut, saying how long it was', async () => {
    const server = await startFakeServer([
      { status: 400, json: { error: { message: `bad ${'x'.repeat(4000)}` } } },
    ]);
    servers.push(server);
    const error = await failureOf(WIRES[0][2](server.url));
    expect(error.message).toMatch(/failed with HTTP 400: bad x+… \(4004 characters\)$/);
  });

  it('a base_url nobody listens on names the address refused, on every wire, through the CLI', async () => {
    const gone = await startFakeServer([]);
    const url = gone.url;
    await gone.close();
    const port = new URL(url).port;
    for (const [name, base, make] of WIRES) {
      const error = await failureOf(make(`http://127.0.0.1:${port}${base}`));
      expect(error.message, name).toMatch(
        new RegExp(
          `^${name} model any-model: connection failed \\(.+: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)$`,
        ),
      );
    }
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: fast
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:${port}/v1
api_key: sk-page-0123
retry: { max_attempts: 1 }
---
kind: agent
name: desk
model: fast
`,
    });
    const result = await agentctl(['run', 'desk', 'hi'], { cwd: dir, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error [PROVIDER_ERROR]: openai model gpt-4.1-mini: connection failed (Connection error: connect ECONNREFUSED 127.0.0.1:${port})`,
    );
  });

  it('a 429 asking for a longer wait than retry.max_delay says why it was not retried', async () => {
    const server = await startFakeServer([
      { status: 429, headers: { 'retry-after': '3600' }, json: { error: { message: 'Rate limit reached' } } },
    ]);
    servers.push(server);
    const provider = createOpenAIProvider({
      apiKey: 'sk-page-0123',
      baseURL: server.url,
      retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2000 },
    });
    const error = await failureOf(provider);
    expect(server.requests).toHaveLength(1);
    expect(error.message).toBe(
      'openai model any-model failed with HTTP 429: Rate limit reached (the server asked to wait 3600 s, longer than retry.max_delay 2 s: not retried)',
    );
  });

  it('a 404 says to check the model id and base_url', async () => {
    const server = await startFakeServer([{ status: 404, json: { error: { message: 'Not found' } } }]);
    servers.push(server);
    const error = await failureOf(WIRES[0][2](server.url));
    expect(error.message).toBe(
      'openai model any-model failed with HTTP 404: Not found (check the model id and base_url)',
    );
  });

  it('a stream whose first chunk is not JSON says so', async () => {
    const server = await startFakeServer([sse([{ data: '{not json' }])]);
    servers.push(server);
    const error = await failureOf(WIRES[0][2](server.url));
    expect(error.message).toMatch(/^openai model any-model: the server sent data that is not JSON \(/);
  });

  it.each(WIRES)(
    '%s: a 200 that is a web page or a JSON body, not an event stream, says what came, to check base_url, and is not asked again',
    async (name, base, make) => {
      // A server that ignores `stream: true` answers the whole thing as JSON.
      const json = { status: 200, json: { id: 'x', choices: [{ message: { content: 'hi' } }] } };
      const server = await startFakeServer([pageReply(200), json], base);
      servers.push(server);
      const retried = (url: string) =>
        name === 'openai'
          ? createOpenAIProvider({
              apiKey: 'sk-page-0123',
              baseURL: url,
              retry: { maxAttempts: 3, initialDelayMs: 1 },
            })
          : name === 'anthropic'
            ? createAnthropicProvider({
                apiKey: 'sk-page-0123',
                baseURL: url,
                retry: { maxAttempts: 3, initialDelayMs: 1 },
              })
            : createGoogleProvider({
                apiKey: 'sk-page-0123',
                baseURL: url,
                retry: { maxAttempts: 3, initialDelayMs: 1 },
              });
      const page = await failureOf(retried(server.url));
      expect(server.requests).toHaveLength(1);
      expect(page).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
      expect(page.message).toBe(
        `${name} model any-model: no answer (the server answered with text/html, not an event stream; check that base_url is the API's address, and that the server streams)`,
      );
      const body = await failureOf(make(server.url));
      expect(body.message).toContain(
        'no answer (the server answered with application/json, not an event stream;',
      );
    },
  );

  it('a 200 with an empty event stream still says it held no events, and is asked again', async () => {
    const server = await startFakeServer([sse([]), sse([])]);
    servers.push(server);
    const provider = createOpenAIProvider({
      apiKey: 'sk-page-0123',
      baseURL: server.url,
      retry: { maxAttempts: 2, initialDelayMs: 1 },
    });
    const error = await failureOf(provider);
    expect(server.requests).toHaveLength(2);
    expect(error.message).toBe(
      "openai model any-model: no answer (the server's answer held no stream events; check that base_url is the API's address) (after 2 attempts)",
    );
  });
});

describe('a refused API key', () => {
  // Each wire refuses a key its own way; Gemini says so with a 400, not a 401.
  const refusals: Array<[string, string, FakeReply, string, Record<string, string>, string]> = [
    [
      'openai',
      '/v1',
      {
        status: 401,
        json: {
          error: {
            message: 'Incorrect API key provided: sk-refu*******6789.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
      },
      '',
      { OPENAI_API_KEY: 'sk-refused-0123456789' },
      'HTTP 401: Incorrect API key provided: sk-refu*******6789. (the API key refused is the one in OPENAI_API_KEY)',
    ],
    [
      'anthropic',
      '',
      {
        status: 401,
        json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
      },
      'api_key: ${TEAM_CLAUDE_KEY}',
      { TEAM_CLAUDE_KEY: 'sk-refused-0123456789' },
      'HTTP 401: invalid x-api-key (the API key refused is the one in TEAM_CLAUDE_KEY, read by api_key of model m)',
    ],
    [
      'google',
      '',
      {
        status: 400,
        json: {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'API_KEY_INVALID',
                domain: 'googleapis.com',
                metadata: { service: 'generativelanguage.googleapis.com' },
              },
            ],
          },
        },
      },
      'api_key: sk-refused-0123456789',
      {},
      'HTTP 400: API key not valid. Please pass a valid API key. (the API key refused is the one in api_key of model m)',
    ],
  ];

  it.each(refusals)(
    '%s: the CLI names where the key came from, never the key, and does not retry',
    async (provider, base, reply, keyLine, env, said) => {
      const server = await startFakeServer([reply], base);
      servers.push(server);
      const dir = await tempProject({
        'agents/desk.yaml': `kind: model
name: m
provider: ${provider}
model: some-model
base_url: ${server.url}
${keyLine}
---
kind: agent
name: desk
model: m
`,
      });
      const result = await agentctl(['run', 'desk', 'hi'], { cwd: dir, env, timeoutMs: 30_000 });
      expect(result.code).toBe(1);
      expect(server.requests).toHaveLength(1);
      expect(result.stderr).toContain(
        `error [PROVIDER_ERROR]: ${provider} model some-model failed with ${said}\n`,
      );
      expect(result.stderr).not.toContain('sk-refused-0123456789');
    },
  );
});
