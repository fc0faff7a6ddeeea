import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiError, openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const flaky = `kind: model
name: flaky
provider: offline
model: script
script:
  - error: { message: overloaded, code: PROVIDER_ERROR, retryable: true }
  - error: { message: overloaded, code: PROVIDER_ERROR, retryable: true }
  - text: hello there
---
kind: agent
name: desk
model: flaky
instruction: Answer.
middleware: [{ retry: { max_attempts: 3, initial_delay: 1ms } }]
`;

describe('attempts of the retry middleware', () => {
  it('are model calls in run usage, in --json and in the summary line', async () => {
    const dir = await tempProject({ 'agents/desk.yaml': flaky });
    const json = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const events = parseNdjson(json.stdout);
    const usage = events.filter((e) => e.type === 'usage').map((e) => e.usage);
    expect(usage).toHaveLength(3);
    expect(usage.map((u) => (u as { failedCalls?: number }).failedCalls)).toEqual([1, 1, undefined]);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', usage: { iterations: 3, failedCalls: 2 } });

    const text = await agentctl(['run', 'desk', 'hi'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stderr).toContain('3 model calls (2 failed)');
  });

  it('count against max.model_calls of a test', async () => {
    const dir = await tempProject({
      'agents/desk.yaml': flaky,
      'tests/desk.yaml': `kind: test
name: retried
agent: desk
turns:
  - user: hi
    expect:
      output: { contains: hello }
      max: { model_calls: 2 }
`,
    });
    const result = await agentctl(['test'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /tests\/desk\.yaml:8:\d+: turn 1, max\.model_calls: expected at most 2 model call\(s\)/,
    );
    expect(result.stdout).toMatch(/actual: +3/);
  });

  it("of a network provider (the middleware sets the provider's own retries) are model calls too", async () => {
    const server = await startFakeServer([]);
    servers.push(server);
    const rateLimited = () => openaiError(429, 'Rate limit reached', { 'retry-after-ms': '1' });
    server.reply(rateLimited(), rateLimited(), sse(openaiText('At last.')));
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: remote
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
api_key: sk-retry-attempts-0123
---
kind: agent
name: desk
model: remote
instruction: Answer.
middleware: [{ retry: { max_attempts: 3, initial_delay: 1ms, max_delay: 20ms } }]
`,
    });
    const result = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(3);
    const events = parseNdjson(result.stdout);
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage.map((e) => (e.usage as { failedCalls?: number }).failedCalls)).toEqual([1, 1, undefined]);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', usage: { iterations: 3, failedCalls: 2 } });
  });
});

describe('a call whose stream was cut', () => {
  it('counts what arrived as an estimate, said to be unreported, not as a call that cost nothing', async () => {
    const answer = 'The answer began with these forty characters and then';
    // The role chunk and 8 pieces of 6 characters arrive; the connection drops before usage comes.
    const server = await startFakeServer([sse(openaiText(answer, { size: 6 }), { cutAfter: 9 })]);
    servers.push(server);
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: remote
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
api_key: sk-cut-usage-0123
pricing: { input: 1, output: 1000000 }
---
kind: agent
name: desk
model: remote
`,
    });
    const result = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: dir });
    expect(result.code).toBe(1);
    const events = parseNdjson(result.stdout);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'MODEL_ERROR' });
    // 48 characters arrived: about 12 tokens by agentctl's estimate, priced at $1 a token.
    expect(events.filter((e) => e.type === 'usage').map((e) => e.usage)).toEqual([
      expect.objectContaining({ outputTokens: 12, unreportedCalls: 1, failedCalls: 1, estimatedCost: 12 }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', usage: { outputTokens: 12, unreportedCalls: 1 } });

    server.reply(sse(openaiText(answer, { size: 6 }), { cutAfter: 9 }));
    const text = await agentctl(['run', 'desk', 'hi'], { cwd: dir });
    expect(text.stderr).toContain('out 12 ·');
    expect(text.stderr).toContain('1 model call (1 failed) · usage not reported by the provider');
  });
});
