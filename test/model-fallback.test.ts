import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../packages/cli/src/default-registry.js';
import { compileProject, loadProject, readCassette } from '../packages/config/src/index.js';
import { type AgentEvent, sleep } from '../packages/core/src/index.js';
import { anthropicText } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { openaiError, openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const rateLimited = () => openaiError(429, 'Rate limit reached', { 'retry-after-ms': '5' });

// The primary on the OpenAI wire retries twice (three attempts) before the chain moves on.
function yaml(openai: string, anthropic: string, cooldown: string): string {
  return `kind: model
name: fast
provider: openai
model: gpt-4.1-mini
base_url: ${openai}
api_key: sk-fallback-openai-0123
retry: { max_attempts: 3, initial_delay: 1ms, max_delay: 50ms }
pricing: { input: 10, output: 10 }
fallback: [steady]
cooldown: ${cooldown}
---
kind: model
name: steady
provider: anthropic
model: claude-haiku-4-5
base_url: ${anthropic}
api_key: sk-ant-fallback-0123
pricing: { input: 1, output: 2 }
---
kind: agent
name: desk
model: fast
instruction: Answer briefly.
`;
}

async function servePair() {
  const openai = await startFakeServer([]);
  const anthropic = await startFakeServer([], '');
  servers.push(openai, anthropic);
  return { openai, anthropic };
}

describe('fallback chains from YAML', () => {
  it('goes OpenAI (429 x3) -> Anthropic, stays there during the cooldown, and returns to OpenAI after it', async () => {
    const { openai, anthropic } = await servePair();
    const dir = await tempProject({ 'agents/desk.yaml': yaml(openai.url, anthropic.url, '400ms') });
    const loaded = await loadProject({ project: dir, env: {}, registry: defaultRegistry() });
    expect(loaded.diagnostics).toEqual([]);
    const { runtime, diagnostics } = await compileProject(loaded, { registry: defaultRegistry(), env: {} });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const desk = runtime?.agents.get('desk');
    if (!runtime || !desk) throw new Error('no agent');
    const run = async (input: string) => {
      const handle = desk.run(input);
      const events: AgentEvent[] = [];
      for await (const event of handle as AsyncIterable<AgentEvent>) events.push(event);
      return { events, output: (await handle).output };
    };
    try {
      openai.reply(rateLimited(), rateLimited(), rateLimited());
      anthropic.reply(
        sse(anthropicText('Claude here.', { usage: { input_tokens: 1000, output_tokens: 500 } })),
      );
      const first = await run('hello');
      expect(first.output).toBe('Claude here.');
      expect(openai.requests).toHaveLength(3);
      expect(anthropic.requests).toHaveLength(1);
      expect(anthropic.requests[0].body.model).toBe('claude-haiku-4-5');
      expect(first.events.find((e) => e.type === 'model_fallback')).toMatchObject({
        from: 'fast',
        to: 'steady',
        code: 'PROVIDER_ERROR',
        status: 429,
      });
      // OpenAI's three attempts failed and count as three calls, with no tokens; the tokens are
      // Anthropic's, priced at its prices: 1000 x $1/M + 500 x $2/M.
      const usage = first.events.filter((e) => e.type === 'usage');
      expect(
        usage.map((e) => [e.model, e.usage.inputTokens, e.usage.estimatedCost, e.usage.failedCalls]),
      ).toEqual([
        ['fast', 0, undefined, 1],
        ['fast', 0, undefined, 1],
        ['fast', 0, undefined, 1],
        ['steady', 1000, 0.002, undefined],
      ]);

      // Within the cooldown the primary is passed over: not one request reaches OpenAI.
      anthropic.reply(sse(anthropicText('Still Claude.')));
      const second = await run('again');
      expect(second.output).toBe('Still Claude.');
      expect(openai.requests).toHaveLength(3);
      expect(second.events.some((e) => e.type === 'model_fallback')).toBe(false);

      await sleep(600);
      openai.reply(sse(openaiText('OpenAI is back.')));
      const third = await run('and now?');
      expect(third.output).toBe('OpenAI is back.');
      expect(openai.requests).toHaveLength(4);
      expect(anthropic.requests).toHaveLength(2);
      expect(third.events.find((e) => e.type === 'usage')).toMatchObject({ model: 'fast' });
    } finally {
      await runtime.dispose();
    }
  });

  it("calls each model of the chain with the first model's temperature, top_p and max_output_tokens", async () => {
    const first = await startFakeServer([]);
    const second = await startFakeServer([]);
    servers.push(first, second);
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: fast
provider: openai
model: gpt-4.1-mini
base_url: ${first.url}
api_key: sk-fallback-openai-0123
retry: { max_attempts: 1 }
temperature: 0.3
top_p: 0.8
max_output_tokens: 77
fallback: [steady]
---
kind: model
name: steady
provider: openai
model: gpt-4.1
base_url: ${second.url}
api_key: sk-fallback-openai-0123
temperature: 0.9
top_p: 0.1
max_output_tokens: 500
---
kind: agent
name: desk
model: fast
---
kind: agent
name: warm
model: fast
temperature: 0.6
max_output_tokens: 40
`,
    });
    first.reply(rateLimited());
    second.reply(sse(openaiText('From the second.')));
    const result = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ type: 'run_end', output: 'From the second.' });
    const settings = { temperature: 0.3, top_p: 0.8, max_completion_tokens: 77 };
    expect(first.requests[0].body).toMatchObject({ model: 'gpt-4.1-mini', ...settings });
    expect(second.requests[0].body).toMatchObject({ model: 'gpt-4.1', ...settings });
    // The agent's own settings win over the first model's, for every model of the chain.
    first.reply(rateLimited());
    second.reply(sse(openaiText('Warm.')));
    const warm = await agentctl(['run', 'warm', 'hi', '--json'], { cwd: dir });
    expect(warm.code, warm.stderr).toBe(0);
    const own = { temperature: 0.6, top_p: 0.8, max_completion_tokens: 40 };
    expect(first.requests[1].body).toMatchObject(own);
    expect(second.requests[1].body).toMatchObject(own);
  });

  it('does not fall back on a 401', async () => {
    const { openai, anthropic } = await servePair();
    const dir = await tempProject({ 'agents/desk.yaml': yaml(openai.url, anthropic.url, '1m') });
    openai.reply(openaiError(401, 'Incorrect API key provided'));
    const result = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(openai.requests).toHaveLength(1);
    expect(anthropic.requests).toHaveLength(0);
    expect(parseNdjson(result.stdout).some((e) => e.type === 'model_fallback')).toBe(false);
  });

  it('falls back through the real CLI, prints the switch in --json, and records the chain as one model', async () => {
    const { openai, anthropic } = await servePair();
    const dir = await tempProject({ 'agents/desk.yaml': yaml(openai.url, anthropic.url, '1m') });
    openai.reply(rateLimited(), rateLimited(), rateLimited());
    anthropic.reply(sse(anthropicText('Answered by Claude.')));
    const result = await agentctl(['run', 'desk', 'hi', '--json', '--record', 'agents/cassettes/desk.yaml'], {
      cwd: dir,
    });
    expect(result.stderr).toContain('recorded 1 model call(s)');
    expect(result.code).toBe(0);
    const events = parseNdjson(result.stdout);
    expect(events.find((e) => e.type === 'model_fallback')).toMatchObject({
      from: 'fast',
      to: 'steady',
      status: 429,
    });
    expect(events.find((e) => e.type === 'run_end')).toMatchObject({ output: 'Answered by Claude.' });
    // The agent asked `fast`; the cassette says `steady` answered, so a replay prices it the same.
    const cassette = await readCassette(join(dir, 'agents/cassettes/desk.yaml'));
    expect(cassette.interactions).toHaveLength(1);
    expect(cassette.interactions[0].request.model).toBe('gpt-4.1-mini');
    expect(cassette.interactions[0].response).toMatchObject({
      content: 'Answered by Claude.',
      servedBy: { model: 'steady', provider: 'anthropic' },
    });

    // Without --json the switch is one line on stderr; the cooldown lived in the last process only.
    openai.reply(rateLimited(), rateLimited(), rateLimited());
    anthropic.reply(sse(anthropicText('Claude again.')));
    const text = await agentctl(['run', 'desk', 'hi'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Claude again.');
    expect(text.stderr).toContain(
      'model fast failed (openai model gpt-4.1-mini failed with HTTP 429: Rate limit reached (after 3 attempts)); asking steady',
    );
    expect(openai.requests).toHaveLength(6);
  });

  it("counts a model the chain left as a failed call, never against the agent's max_iterations", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': `kind: model
name: primary
provider: offline
model: script
script:
  - { fallback: true, error: { message: "primary is down", code: PROVIDER_ERROR, retryable: true } }
fallback: [worker]
---
kind: model
name: worker
provider: offline
model: script
script:
  - { fallback: true, tool_calls: [{ name: current_time, arguments: {} }] }
---
kind: agent
name: a
model: primary
tools: [{ builtin: current_time }]
limits: { max_iterations: 4 }
`,
    });
    const run = await agentctl(['run', 'a', 'go'], { cwd: dir });
    expect(run.code).toBe(1);
    // Four steps answered, as the limit says, and the one failed call said beside them.
    expect(run.stderr.match(/← current_time/g)).toHaveLength(4);
    expect(run.stderr).toContain(
      'error [MAX_ITERATIONS_EXCEEDED]: agent a reached its limit of 4 model calls',
    );
    expect(run.stderr).toContain('5 model calls (1 failed)');
  });

  it('validate names a missing fallback model and a cycle, with file, line and column', async () => {
    const dir = await tempProject({
      'agents/models.yaml': `kind: model
name: fast
provider: google
model: gemini-2.5-flash
fallback: [steddy]
---
kind: model
name: steady
provider: openai
model: gpt-4.1-mini
fallback: [backup]
---
kind: model
name: backup
provider: anthropic
model: claude-haiku-4-5
fallback: [steady]
`,
    });
    const result = await agentctl(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'agents/models.yaml:5:12: error: fallback model `steddy` of model `fast` is not defined; did you mean `steady`? [model-fallback]',
    );
    expect(result.stdout + result.stderr).toMatch(
      /agents\/models\.yaml:11:12: error: fallback cycle: steady -> backup -> steady/,
    );
  });
});
