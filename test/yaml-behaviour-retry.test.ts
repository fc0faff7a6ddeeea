import { afterEach, describe, expect, it } from 'vitest';
import { AgentError, Runner } from '../packages/core/src/index.js';
import { openaiError } from '../packages/provider-openai/test/support/openai-wire.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';
import { type CompiledProject, compileYaml } from './support/yaml-project.js';

const open: Array<CompiledProject | FakeServer> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function failingServer(): Promise<FakeServer> {
  const server = await startFakeServer();
  for (let i = 0; i < 20; i++) server.reply(openaiError(500, 'boom'));
  open.push(server);
  return server;
}

function model(url: string, retry = '') {
  return `kind: model\nname: net\nprovider: openai\nmodel: m\nbase_url: ${url}\n${retry}`;
}

async function runFails(project: CompiledProject, agent = 'a'): Promise<AgentError> {
  const error = await new Runner({ agent: project.agent(agent) })
    .run({ input: 'hi' })
    .invocation.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

describe('YAML retry: one owner per model', () => {
  it('a retry middleware on a network model sets the provider policy instead of stacking on it', async () => {
    const server = await failingServer();
    const project = await compileYaml({
      'agents/a.yaml': `kind: agent\nname: a\nmodel: net\nmiddleware: [{ retry: { max_attempts: 2, initial_delay: 1ms, max_delay: 5ms } }]\n---\n${model(
        server.url,
        'retry: { max_attempts: 4, initial_delay: 1ms, max_delay: 5ms }\n',
      )}`,
    });
    open.push(project);
    const error = await runFails(project);
    expect(error.code).toBe('PROVIDER_ERROR');
    // Before: the middleware's 2 attempts each made the provider's 4 (8 requests).
    expect(server.requests).toHaveLength(2);
  });

  it("without a retry middleware the model's own retry policy counts the attempts", async () => {
    const server = await failingServer();
    const project = await compileYaml({
      'agents/a.yaml': `kind: agent\nname: a\nmodel: net\n---\n${model(
        server.url,
        'retry: { max_attempts: 4, initial_delay: 1ms, max_delay: 5ms }\n',
      )}`,
    });
    open.push(project);
    await runFails(project);
    expect(server.requests).toHaveLength(4);
  });

  it('an offline model keeps the retry middleware', async () => {
    const project = await compileYaml({
      'agents/a.yaml': `kind: agent
name: a
model: flaky
middleware: [{ retry: { max_attempts: 3, initial_delay: 1ms, max_delay: 2ms } }]
---
kind: model
name: flaky
provider: offline
model: script
script:
  - error: { message: overloaded, code: PROVIDER_ERROR, retryable: true }
  - error: { message: overloaded, code: PROVIDER_ERROR, retryable: true }
  - text: third time lucky
`,
    });
    open.push(project);
    const result = await new Runner({ agent: project.agent('a') }).run({ input: 'hi' }).invocation;
    expect(result.output).toBe('third time lucky');
  });
});
