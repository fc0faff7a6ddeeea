import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempDir } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

// gpt-4.1-mini list prices in the catalogue (USD per million tokens): input, output, cached input.
const CATALOGUE = { input: 0.4, output: 1.6, cacheRead: 0.1 };
const WIRE_USAGE = { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 200 };

let server: FakeServer;
let project: string;
beforeAll(async () => {
  server = await startFakeServer();
  project = await tempDir('agentctl-catalogue-');
  await mkdir(join(project, 'agents'));
  await writeFile(
    join(project, 'agents/priced.yaml'),
    `kind: model
name: listed
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
api_key: sk-test
---
kind: model
name: own-prices
provider: openai
model: gpt-4.1-mini-2025-04-14
base_url: ${server.url}
api_key: sk-test
pricing: { input: 1, output: 2, cache_read: 0.5 }
---
kind: model
name: unknown
provider: openai
model: my-local-llama
base_url: ${server.url}
api_key: sk-test
---
kind: agent
name: listed
model: listed
---
kind: agent
name: own-prices
model: own-prices
---
kind: agent
name: unknown
model: unknown
`,
  );
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

async function runCost(agent: string): Promise<number | undefined> {
  server.reply({ sse: openaiText('Hello.', { usage: WIRE_USAGE }) });
  const { code, stdout, stderr } = await agentctl(['run', agent, 'hi', '--json'], { cwd: project });
  expect(code, stderr).toBe(0);
  const end = parseNdjson(stdout).at(-1) as { type: string; usage: Record<string, number> };
  expect(end.type).toBe('run_end');
  expect(end.usage).toMatchObject({ inputTokens: 800, outputTokens: 500, cacheReadTokens: 200 });
  return end.usage.estimatedCost;
}

describe('the model catalogue', () => {
  it('prices a run on gpt-4.1-mini with no pricing in the YAML', async () => {
    const cost = await runCost('listed');
    expect(cost).toBeCloseTo(
      (800 * CATALOGUE.input + 500 * CATALOGUE.output + 200 * CATALOGUE.cacheRead) / 1e6,
      12,
    );
    // The text output shows it on the usage line.
    server.reply({ sse: openaiText('Hello.', { usage: WIRE_USAGE }) });
    const text = await agentctl(['run', 'listed', 'hi'], { cwd: project });
    expect(text.stderr + text.stdout).toContain('$0.001140');
  });

  it('lets YAML pricing override the catalogue', async () => {
    expect(await runCost('own-prices')).toBeCloseTo((800 * 1 + 500 * 2 + 200 * 0.5) / 1e6, 12);
  });

  it('reports no cost for a model it does not know', async () => {
    expect(await runCost('unknown')).toBeUndefined();
  });
});

describe('the longest answer the catalogue knows', () => {
  it('validate warns where max_output_tokens asks a model for more, on a model and on an agent', async () => {
    const dir = await tempDir('agentctl-output-limit-');
    await mkdir(join(dir, 'agents'));
    await writeFile(
      join(dir, 'agents/long.yaml'),
      `kind: model
name: claude
provider: anthropic
model: claude-sonnet-4-6
max_output_tokens: 100000
---
kind: agent
name: essay
model: openai/gpt-5-mini-2025-08-07
max_output_tokens: 500000
---
kind: agent
name: note
model: claude
max_output_tokens: 64000
`,
    );
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(0);
    const lines = (check.stdout + check.stderr).split('\n').filter((line) => line.includes('[output-limit]'));
    expect(lines).toEqual([
      'agents/long.yaml:5:20: warning: max_output_tokens 100000 of model `claude` is more than anthropic model `claude-sonnet-4-6` can answer with (64000); the API refuses such a request [output-limit]',
      'agents/long.yaml:10:20: warning: max_output_tokens 500000 of agent `essay` is more than openai model `gpt-5-mini-2025-08-07` can answer with (128000); the API refuses such a request [output-limit]',
    ]);
  });
});

describe('a model id the catalogue does not know', () => {
  it('validate warns at a likely typo with a did-you-mean, errs on an offline one, and --strict fails', async () => {
    const dir = await tempDir('agentctl-model-id-');
    await mkdir(join(dir, 'agents'));
    await writeFile(
      join(dir, 'agents/ids.yaml'),
      `kind: model
name: claude
provider: anthropic
model: claude-sonet-4-5
---
kind: agent
name: typo
model: openai/gpt-4o-mnii
---
kind: agent
name: newer
model: openai/gpt-5.1
---
kind: agent
name: legacy
model: openai/gpt-4
---
kind: agent
name: snapshot
model: openai/gpt-4.1-mini-2025-04-14
---
kind: agent
name: local
model: claude
`,
    );
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout.split('\n').filter((line) => line.includes('[model-id]'))).toEqual([
      "agents/ids.yaml:4:8: warning: model `claude`: anthropic has no model `claude-sonet-4-5` in agentctl's catalogue (of 2026-11-23); did you mean `claude-sonnet-4-5`? [model-id]",
      "agents/ids.yaml:8:8: warning: model `openai/gpt-4o-mnii`: openai has no model `gpt-4o-mnii` in agentctl's catalogue (of 2026-11-23); did you mean `gpt-4o-mini`? [model-id]",
    ]);
    expect((await agentctl(['validate', '--strict'], { cwd: dir })).code).toBe(1);

    await writeFile(join(dir, 'agents/offline.yaml'), 'kind: agent\nname: off\nmodel: offline/ehco\n');
    const offline = await agentctl(['validate'], { cwd: dir });
    expect(offline.code).toBe(1);
    expect(offline.stdout).toContain(
      'agents/offline.yaml:3:8: error: model `offline/ehco`: provider `offline` has no model `ehco`; did you mean `echo`? (its models: echo, script, auto, replay) [inline-model]',
    );
  });
});

describe('a reasoning model given a sampling setting', () => {
  it('validate warns where temperature or top_p is not 1, on a model and on an agent', async () => {
    const dir = await tempDir('agentctl-fixed-sampling-');
    await mkdir(join(dir, 'agents'));
    await writeFile(
      join(dir, 'agents/think.yaml'),
      `kind: model
name: think
provider: openai
model: gpt-5-mini-2025-08-07
temperature: 0.2
---
kind: agent
name: a
model: openai/o3
temperature: 0.7
top_p: 1
---
kind: agent
name: plain
model: openai/gpt-4.1-mini
temperature: 0.2
`,
    );
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout.split('\n').filter((line) => line.includes('[unsupported-setting]'))).toEqual([
      'agents/think.yaml:5:14: warning: openai model `gpt-5-mini-2025-08-07` takes `temperature` only at 1 (a reasoning model); the API refuses 0.2: remove it from model `think` [unsupported-setting]',
      'agents/think.yaml:10:14: warning: openai model `o3` takes `temperature` only at 1 (a reasoning model); the API refuses 0.7: remove it from agent `a` [unsupported-setting]',
    ]);
  });
});
