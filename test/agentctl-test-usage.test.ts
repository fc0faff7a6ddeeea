import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

// `max: { tokens }` against a provider that reports no token usage: a loopback server speaking the
// OpenAI wire without the usage chunk (as some OpenAI-compatible servers do), and cassettes edited
// by hand. Counting such a call as 0 tokens would pass every limit without checking it.
const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const TEST = `kind: test
name: stays-cheap
agent: bot
turns:
  - user: hi
    expect:
      output: { contains: Hello }
      max: { model_calls: 1, tokens: 500 }
`;

async function liveProject(url: string): Promise<string> {
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/bot.yaml': `kind: model
name: local
provider: openai
model: local-model
base_url: ${url}
api_key: sk-local-0a1b2c3d
---
kind: agent
name: bot
model: local
`,
    'tests/bot.yaml': TEST,
  });
}

async function replayProject(usage: string): Promise<string> {
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/bot.yaml': `kind: model
name: taped
provider: offline
model: replay
cassette: ../cassettes/bot.yaml
---
kind: agent
name: bot
model: taped
`,
    'cassettes/bot.yaml': `version: 1
interactions:
  - request:
      model: replay
      messages:
        - { role: user, content: hi }
    response:
      content: Hello there.
      toolCalls: []
      usage: ${usage}
`,
    'tests/bot.yaml': TEST,
  });
}

describe('max.tokens when the model reports no token usage', () => {
  it('fails the expectation at its line, in every format, rather than pass on 0 tokens', async () => {
    const server = await startFakeServer();
    servers.push(server);
    const dir = await liveProject(server.url);
    for (let i = 0; i < 4; i++) server.reply(sse(openaiText('Hello there.', { usage: null })));

    const text = await agentctl(['test'], { cwd: dir });
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(
      'tests/bot.yaml:8:38: turn 1, max.tokens: the model reported no token usage for its call, so the limit of 500 tokens cannot be checked',
    );
    expect(text.stdout).toContain('actual:   "no usage reported"');

    const json = await agentctl(['test', '--format', 'json'], { cwd: dir });
    expect(json.code).toBe(1);
    const failures = JSON.parse(json.stdout).tests[0].failures;
    expect(failures).toEqual([
      expect.objectContaining({
        expectation: 'max.tokens',
        line: 8,
        col: 38,
        actual: 'no usage reported',
        message: expect.stringContaining('reported no token usage'),
      }),
    ]);

    const junit = await agentctl(['test', '--format', 'junit'], { cwd: dir });
    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain('<failure message="max.tokens: the model reported no token usage');
    expect(junit.stdout).toContain('tests/bot.yaml:8:38');

    const github = await agentctl(['test', '--format', 'github'], {
      cwd: dir,
      env: { GITHUB_WORKSPACE: dir },
    });
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(
      /::error file=tests\/bot\.yaml,line=8,col=38,[^:]*::stays-cheap: turn 1, max\.tokens: the model reported no token usage/,
    );
  });

  it('still passes the limit when the server reports usage within it', async () => {
    const server = await startFakeServer([sse(openaiText('Hello there.'))]);
    servers.push(server);
    const result = await agentctl(['test'], { cwd: await liveProject(server.url) });
    expect(result.stdout).toContain('✓ stays-cheap');
    expect(result.code, result.stdout).toBe(0);
  });

  it('fails the same way on a cassette whose recorded call has no usage (edited by hand)', async () => {
    const result = await agentctl(['test'], { cwd: await replayProject('{}') });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(
      'max.tokens: the model reported no token usage for its call, so the limit of 500 tokens cannot be checked',
    );
  });

  it('records a call without usage as unreported, and its replay fails the limit the same way', async () => {
    const server = await startFakeServer([sse(openaiText('Hello there.', { usage: null }))]);
    servers.push(server);
    const dir = await liveProject(server.url);
    const record = await agentctl(['run', 'bot', 'hi', '--record', 'cassettes/bot.yaml'], { cwd: dir });
    expect(record.code, record.stderr).toBe(0);
    // The run's usage line does not pass the 0 off as what the call cost.
    expect(record.stderr).toMatch(/1 model call · usage not reported by the provider/);
    const recorded = await readFile(join(dir, 'cassettes/bot.yaml'), 'utf8');
    expect(recorded).toContain('unreported: true');
    await writeFile(
      join(dir, 'agents/bot.yaml'),
      'kind: model\nname: taped\nprovider: offline\nmodel: replay\ncassette: ../cassettes/bot.yaml\n---\nkind: agent\nname: bot\nmodel: taped\n',
    );
    const replay = await agentctl(['test'], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stdout).toContain('max.tokens: the model reported no token usage for its call');
  });

  it('checks the counts a cassette recorded, and refuses a misspelt one at its line', async () => {
    const within = await agentctl(['test'], {
      cwd: await replayProject('{ inputTokens: 9, outputTokens: 3 }'),
    });
    expect(within.code, within.stdout + within.stderr).toBe(0);

    const over = await agentctl(['test'], {
      cwd: await replayProject('{ inputTokens: 900, outputTokens: 3 }'),
    });
    expect(over.code).toBe(1);
    expect(over.stdout).toContain('max.tokens: expected at most 500 tokens');

    const misspelt = await agentctl(['test'], {
      cwd: await replayProject('{ inputTokens: 900, output_tokens: 3 }'),
    });
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toMatch(
      /cassettes\/bot\.yaml:10:\d+: .*response\.usage\.output_tokens is not a usage field/,
    );
  });
});

describe('max.model_calls', () => {
  it('counts the model of a fallback chain that failed: the step called two models, not one', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/bot.yaml': `kind: agent
name: bot
model: flaky
---
kind: model
name: flaky
provider: offline
model: script
fallback: [steady]
script:
  - error: { message: upstream down, code: PROVIDER_ERROR, retryable: true }
---
kind: model
name: steady
provider: offline
model: echo
`,
      'tests/bot.yaml': `kind: test
name: one-call
agent: bot
turns:
  - user: hi
    expect: { output: { contains: hi }, max: { model_calls: 1 } }
---
kind: test
name: two-calls
agent: bot
turns:
  - user: hi
    expect: { output: { contains: hi }, max: { model_calls: 2 } }
`,
    });
    const result = await agentctl(['test'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✓ two-calls');
    expect(result.stdout).toContain(
      'tests/bot.yaml:6:61: turn 1, max.model_calls: expected at most 1 model call(s)',
    );
    expect(result.stdout).toMatch(/expected: 1\n\s+actual: +2/);
  });

  it("warns on run that an agent's own limits.max_tokens cannot count a call that reported no usage", async () => {
    const dir = await replayProject('{}');
    const limited = (await readFile(join(dir, 'agents/bot.yaml'), 'utf8')).replace(
      'model: taped\n',
      'model: taped\nlimits: { max_tokens: 800 }\n',
    );
    await writeFile(join(dir, 'agents/bot.yaml'), limited);
    const run = await agentctl(['run', 'bot', 'hi'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'agentctl: warning: the model of agent bot reported no token usage for some calls, so its limit of 800 tokens (limits.max_tokens) counts only the calls that did',
    );
    // Without a limit there is nothing to warn of: the usage line says the provider reported none.
    const plain = await agentctl(['run', 'bot', 'hi'], { cwd: await replayProject('{}') });
    expect(plain.stderr).not.toContain('limits.max_tokens');
    expect(plain.stderr).toContain('usage not reported by the provider');
  });
});
