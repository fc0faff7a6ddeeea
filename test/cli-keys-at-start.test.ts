import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { startServe, stopServers } from './support/serve.js';
import { startWorker, stopWorkers } from './support/worker.js';

// No key anywhere: the variables a developer's shell may hold are removed from every command.
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, MY_KEY: undefined };

let redis: RedisProcess | undefined;
afterAll(async () => {
  await stopServers();
  await stopWorkers();
  await redis?.stop();
  await removeTempDirs();
});

const AGENTS = `kind: model
name: fast
provider: openai
model: gpt-4.1-mini
api_key: \${MY_KEY}
---
kind: agent
name: a
model: fast
instruction: Answer.
---
kind: agent
name: b
model: offline/echo
`;

const WARNING =
  'agents/a.yaml:5:10: warning: model `fast` (openai gpt-4.1-mini) has no API key: set MY_KEY in the environment';

describe('a long-lived command whose model has no API key', () => {
  it('serve says so at start, at the model line, and serves on (the key may come later)', async () => {
    const dir = await tempProject({ 'agents/a.yaml': AGENTS });
    const server = await startServe(dir, [], NO_KEYS);
    expect(server.stderr()).toContain(WARNING);
    expect(server.stderr()).toContain('(until it is set, runs on this model fail) [api-key]');
    const health = await fetch(`${server.url}/health`).catch(() => undefined);
    expect(health?.status).toBe(200);
    const watched = await startServe(dir, ['--watch'], NO_KEYS);
    expect(watched.stderr()).toContain(WARNING);
  });

  it('dev says so at start, then chats (each message failing until the key is set)', async () => {
    const dir = await tempProject({ 'agents/a.yaml': AGENTS });
    const dev = await agentctl(['dev', 'a'], { cwd: dir, env: NO_KEYS, input: '' });
    expect(dev.stderr).toContain(WARNING);
    expect(dev.stderr).toContain('chatting with a');
    // An agent on another model has nothing to warn of.
    const offline = await agentctl(['dev', 'b'], { cwd: dir, env: NO_KEYS, input: '' });
    expect(offline.stderr).not.toContain('no API key');
  });

  it('worker says so at start, without the --model hint it has no flag for', async () => {
    redis = await startRedis();
    const dir = await tempProject({ 'agents/a.yaml': AGENTS });
    const worker = await startWorker(dir, [], { ...NO_KEYS, AGENTCTL_QUEUE_URL: redis.url });
    expect(worker.stderr()).toContain(WARNING);
    expect(worker.stderr()).not.toContain('--model');
  });
});

describe('agentctl test with a model that has no API key', () => {
  it('fails the test that would call it, at its line, naming the model line and the variable; others run', async () => {
    const dir = await tempProject({
      'agents/a.yaml': AGENTS,
      'tests/t.yaml': `kind: test
name: live
agent: a
turns:
  - user: hi
    expect: { output: { contains: hi } }
---
kind: test
name: offline
agent: b
turns:
  - user: hello
    expect: { output: { contains: hello } }
---
kind: test
name: overridden
agent: a
model: offline/echo
turns:
  - user: hello
    expect: { output: { contains: hello } }
`,
    });
    const result = await agentctl(['test'], { cwd: dir, env: NO_KEYS });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('tests/t.yaml:3:8: error: could not run the test');
    expect(result.stdout).toContain(
      'agents/a.yaml:5:10: error: model `fast` (openai gpt-4.1-mini) has no API key: set MY_KEY',
    );
    expect(result.stdout).toContain('or the test `model: offline/echo` [api-key]');
    // Not run: no provider error per step, no expectation failing after it.
    expect(result.stdout).not.toContain('PROVIDER_ERROR');
    expect(result.stdout).not.toContain('output.contains');
    expect(result.stdout).toContain('✓ offline');
    expect(result.stdout).toContain('✓ overridden');
    expect(result.stdout).toContain('3 test(s): 2 passed, 1 error(s)');
  });
});
