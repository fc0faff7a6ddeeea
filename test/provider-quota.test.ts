import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentError, ModelProvider } from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { anthropicText } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { createGoogleProvider } from '../packages/provider-google/src/index.js';
import { geminiText } from '../packages/provider-google/test/support/gemini-wire.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeReply, type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const RETRY = { maxAttempts: 4, initialDelayMs: 1, maxDelayMs: 50 };
const QUOTA_NOTE =
  "the account's quota or billing is exhausted, not a passing rate limit, so it is not retried";

// Each API's own body for an account out of quota: the same 429 as a rate limit, told apart only by its details.
const OPENAI_QUOTA: FakeReply = {
  status: 429,
  json: {
    error: {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      param: null,
      code: 'insufficient_quota',
    },
  },
};
const ANTHROPIC_SPEND_CAP: FakeReply = {
  status: 429,
  json: {
    type: 'error',
    error: {
      type: 'rate_limit_error',
      message: 'You have reached your monthly spend limit for this usage tier.',
      details: { error_code: 'enforced_spend_limit_reached' },
    },
    request_id: 'req_fake',
  },
};
function geminiQuota(violation: Record<string, unknown>, retryDelay = '0.01s'): FakeReply {
  return {
    status: 429,
    json: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                ...violation,
              },
            ],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
        ],
      },
    },
  };
}
const GEMINI_DAILY = geminiQuota({
  quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
  quotaValue: '250',
});

const WIRES: [string, string, (url: string) => ModelProvider, FakeReply, FakeReply, string][] = [
  [
    'openai',
    '/v1',
    (url) => createOpenAIProvider({ apiKey: 'sk-quota-0123', baseURL: url, retry: RETRY }),
    OPENAI_QUOTA,
    sse(openaiText('never')),
    'insufficient_quota',
  ],
  [
    'anthropic',
    '',
    (url) => createAnthropicProvider({ apiKey: 'sk-quota-0123', baseURL: url, retry: RETRY }),
    ANTHROPIC_SPEND_CAP,
    sse(anthropicText('never')),
    'enforced_spend_limit_reached',
  ],
  [
    'google',
    '',
    (url) => createGoogleProvider({ apiKey: 'sk-quota-0123', baseURL: url, retry: RETRY }),
    GEMINI_DAILY,
    sse(geminiText('never')),
    'daily quota GenerateRequestsPerDayPerProjectPerModel-FreeTier',
  ],
];

async function outcome(provider: ModelProvider): Promise<{ error?: AgentError; text: string }> {
  let text = '';
  for await (const event of provider.stream({
    model: 'any-model',
    messages: [{ role: 'user', content: 'hi' }],
  })) {
    if (event.type === 'error') return { error: event.error, text };
    if (event.type === 'token') text += event.text;
  }
  return { text };
}

describe('a 429 that means out of quota', () => {
  it.each(WIRES)(
    '%s: fails at once, saying the quota is exhausted, not retried',
    async (name, base, make, quota, answer, why) => {
      const server = await startFakeServer([quota, answer], base);
      servers.push(server);
      const { error } = await outcome(make(server.url));
      expect(server.requests).toHaveLength(1);
      expect(error?.code).toBe('PROVIDER_ERROR');
      expect(error?.retryable).toBe(false);
      expect(error?.context).toMatchObject({ status: 429, quotaExhausted: true, retryable: false });
      expect(error?.message).toMatch(new RegExp(`^${name} model any-model failed with HTTP 429: `));
      expect(error?.message).toContain(`(out of quota: ${why}; ${QUOTA_NOTE})`);
    },
  );

  it('google: a quota of 0 (the model is not in the plan without billing) is not retried either', async () => {
    const server = await startFakeServer(
      [
        geminiQuota({ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaValue: '0' }),
        sse(geminiText('never')),
      ],
      '',
    );
    servers.push(server);
    const { error } = await outcome(WIRES[2][2](server.url));
    expect(server.requests).toHaveLength(1);
    expect(error?.message).toContain(
      '(out of quota: GenerateRequestsPerMinutePerProjectPerModel-FreeTier is 0 on this plan;',
    );
  });

  // The other side of the line: the limits a wait does end are still retried.
  it.each([
    [
      'openai',
      0,
      {
        status: 429,
        json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      },
    ],
    [
      'anthropic',
      1,
      {
        status: 429,
        json: { type: 'error', error: { type: 'rate_limit_error', message: 'Too many requests' } },
      },
    ],
    [
      'google',
      2,
      geminiQuota({ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaValue: '10' }),
    ],
  ] as const)('%s: a per-minute rate limit is still retried', async (_name, index, limited) => {
    const [, base, make, , answer] = WIRES[index];
    const server = await startFakeServer([limited as FakeReply, answer], base);
    servers.push(server);
    const { error, text } = await outcome(make(server.url));
    expect(error).toBeUndefined();
    expect(text).toBe('never');
    expect(server.requests).toHaveLength(2);
  });

  it('through the CLI: one request, a clear line, and a fallback chain moves on to the next model', async () => {
    const openai = await startFakeServer([OPENAI_QUOTA, OPENAI_QUOTA]);
    const anthropic = await startFakeServer([sse(anthropicText('Claude here.'))], '');
    servers.push(openai, anthropic);
    const model = (fallback: string) => `kind: model
name: fast
provider: openai
model: gpt-4.1-mini
base_url: ${openai.url}
api_key: sk-quota-0123
retry: { max_attempts: 5, initial_delay: 1ms }
${fallback}---
kind: model
name: steady
provider: anthropic
model: claude-haiku-4-5
base_url: ${anthropic.url}
api_key: sk-ant-quota-0123
---
kind: agent
name: desk
model: fast
`;
    const alone = await tempProject({ 'agents/desk.yaml': model('') });
    const failed = await agentctl(['run', 'desk', 'hi'], { cwd: alone, timeoutMs: 30_000 });
    expect(failed.code).toBe(1);
    expect(openai.requests).toHaveLength(1);
    expect(failed.stderr).toContain(
      `error [PROVIDER_ERROR]: openai model gpt-4.1-mini failed with HTTP 429: You exceeded your current quota, please check your plan and billing details. (out of quota: insufficient_quota; ${QUOTA_NOTE})\n`,
    );

    const chained = await tempProject({ 'agents/desk.yaml': model('fallback: [steady]\n') });
    const served = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: chained, timeoutMs: 30_000 });
    expect(served.code, served.stderr).toBe(0);
    expect(openai.requests).toHaveLength(2);
    expect(anthropic.requests).toHaveLength(1);
    const events = parseNdjson(served.stdout);
    expect(events.find((e) => e.type === 'model_fallback')).toMatchObject({
      from: 'fast',
      to: 'steady',
      status: 429,
    });
    expect(events.find((e) => e.type === 'run_end')).toMatchObject({ output: 'Claude here.' });
  });
});
