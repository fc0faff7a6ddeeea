import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, REPO, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';
import { processesWith } from './support/processes.js';
import { waitFor } from './support/wait-for.js';

// A test's time limit: `timeout:` in the test, else `agentctl test --timeout`. Under `test`, other
// tests keep Node's event loop alive, so a run waiting on a promise nothing settles is not found
// out by an empty loop (as `run` finds it): the limit ends that test, naming what it waited on,
// and the others finish. What the stuck run holds (an MCP server, a command's process) goes with it.
const LINGERING = join(REPO, 'packages/mcp/test/fixtures/hostile.js');
const markers: string[] = [];
const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const marker of markers.splice(0))
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
});
afterAll(removeTempDirs);

function project(marker: string): Promise<string> {
  const node = JSON.stringify(process.execPath);
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'mw/stuck.js': `export default function stuck(action, next) {
  return action.type === 'model_call' ? new Promise(() => {}) : next();
}\n`,
    'agents/agents.yaml': `kind: agent
name: echo
model: offline/echo
---
kind: agent
name: stuck
model: offline/echo
middleware: [stuck]
---
kind: middleware
name: stuck
module: ../mw/stuck.js
---
kind: agent
name: sleepy
model: scripted
tools: [sleeper, { toolset: lingering }]
---
kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: c1, name: sleeper, arguments: {} }]
  - text: done
---
kind: tool
name: sleeper
description: Never ends by itself
command: { argv: [${node}, -e, "setInterval(() => {}, 1000)", ${marker}-tool] }
needs_approval: false
timeout: 5m
---
kind: toolset
name: lingering
mcp: { command: ${node}, args: [${JSON.stringify(LINGERING)}, linger, ${marker}-mcp] }
`,
    'tests/echo.yaml': `kind: test
name: echoes
agent: echo
turns:
  - user: hello
    expect: { output: { contains: hello } }
`,
    'tests/stuck.yaml': `kind: test
name: never-settles
agent: stuck
turns:
  - user: hello
    expect: { output: { contains: hello } }
`,
    'tests/sleepy.yaml': `kind: test
name: sleeps
agent: sleepy
timeout: 1s
turns:
  - user: hello
    expect: { output: { contains: done } }
`,
  });
}

describe('agentctl test --timeout and a test’s timeout:', () => {
  it('fails a test out of time naming what it waited on, finishes the others, and releases what the run held', async () => {
    const marker = `agentctl-test-timeout-${randomUUID()}`;
    markers.push(marker);
    const dir = await project(marker);
    const result = await agentctl(['test', '--timeout', '1500ms'], { cwd: dir, timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(1);
    const out = result.stdout;
    expect(out).toContain('✓ echoes');
    expect(out).toContain('✗ never-settles tests/stuck.yaml:2');
    expect(out).toContain(
      'tests/stuck.yaml:5:11: turn 1, timeout: the test did not finish within its timeout of 1.5 s: it still waited on middleware `stuck` during model_call',
    );
    // Its own `timeout:` wins over --timeout.
    expect(out).toContain(
      'tests/sleepy.yaml:6:11: turn 1, timeout: the test did not finish within its timeout of 1 s: it still waited on tool `sleeper`',
    );
    expect(out).toContain('3 test(s): 1 passed, 2 failed');
    // The command tool's process and the MCP server were stopped with the test, not left behind.
    await waitFor(() => processesWith(marker).length === 0, 'the stuck test’s processes ended', 10_000);
  });

  it('reports the timeout in json as a failure at the step', async () => {
    const marker = `agentctl-test-timeout-${randomUUID()}`;
    markers.push(marker);
    const dir = await project(marker);
    const result = await agentctl(['test', 'never-settles', '--timeout', '1s', '--format', 'json'], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    const [test] = JSON.parse(result.stdout).tests;
    expect(test).toMatchObject({
      name: 'never-settles',
      status: 'failed',
      failures: [
        {
          expectation: 'timeout',
          line: 5,
          col: 11,
          actual: ['middleware `stuck` during model_call'],
        },
      ],
    });
  });

  it('fails a judge that is still judging at the timeout at its criteria, naming the judge’s model', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/echo.yaml': 'kind: agent\nname: echo\nmodel: offline/echo\n',
      'tests/judged.yaml': `kind: test
name: slow-judge
agent: echo
timeout: 1s
turns:
  - user: hi
    expect:
      judge: { model: ponderous, criteria: says hi }
---
kind: model
name: ponderous
provider: offline
model: script
script:
  - text: '{"pass": true, "reason": "it says hi, after a long think"}'
    delay_ms: 5000
`,
    });
    const result = await agentctl(['test'], { cwd: dir, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'tests/judged.yaml:8:44: turn 1, judge: the test did not finish within its timeout of 1 s: it still waited on model `script` (provider `offline`)',
    );
  });

  it('keeps the cassette of a test that ran out of time while --update recorded it (its calls stop short)', async () => {
    const server = await startFakeServer([sse(openaiText('First answer.')), { hang: true }]);
    servers.push(server);
    const cassette = `version: 1
interactions:
  - request: { model: local-model, messages: [{ role: user, content: first }] }
    response: { content: Recorded before., toolCalls: [], usage: { inputTokens: 5, outputTokens: 3 } }
`;
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/live.yaml': `kind: model
name: live
provider: openai
model: local-model
base_url: ${server.url}
api_key: \${LIVE_KEY:-}
cassette: ../cassettes/live.yaml
---
kind: agent
name: live
model: live
`,
      'cassettes/live.yaml': cassette,
      'tests/live.yaml': `kind: test
name: live-talks
agent: live
timeout: 1s
turns:
  - user: first
  - user: second
`,
    });
    const result = await agentctl(['test', '--update'], {
      cwd: dir,
      env: { LIVE_KEY: 'sk-live-0a1b2c3d4e' },
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('tests/live.yaml:7:11: turn 2, timeout: the test did not finish within');
    expect(result.stderr).toContain(
      'cassettes/live.yaml not updated: test live-talks failed with TIMEOUT, so its recording is incomplete',
    );
    expect(await readFile(join(dir, 'cassettes/live.yaml'), 'utf8')).toBe(cassette);
  });

  it('refuses --timeout 0 or a non-duration as bad usage (exit 2), before any test runs', async () => {
    const dir = await project(`agentctl-test-timeout-${randomUUID()}`);
    for (const value of ['0', '0s']) {
      const zero = await agentctl(['test', 'echoes', '--timeout', value], { cwd: dir });
      expect(zero.code).toBe(2);
      expect(zero.stderr).toBe(
        'agentctl: --timeout must be longer than 0 (every test would fail before it starts)\n',
      );
      expect(zero.stdout).toBe('');
    }
    const soon = await agentctl(['test', 'echoes', '--timeout', 'soon'], { cwd: dir });
    expect(soon.code).toBe(2);
    expect(soon.stderr).toContain('--timeout: "soon" is not a duration');
  });

  it('refuses a test’s timeout of 0 or a non-duration at its line, in validate and test', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/echo.yaml': 'kind: agent\nname: echo\nmodel: offline/echo\n',
      'tests/zero.yaml':
        'kind: test\nname: zero\nagent: echo\ntimeout: 0s\nturns:\n  - user: hi\n---\nkind: test\nname: soon\nagent: echo\ntimeout: soon\nturns:\n  - user: hi\n',
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      'tests/zero.yaml:4:10: error: `timeout` is not valid: "0s"; expected a duration longer than zero',
    );
    expect(validate.stdout).toMatch(/tests\/zero\.yaml:11:10: error: `timeout` is not valid/);
    const test = await agentctl(['test'], { cwd: dir });
    expect(test.code).toBe(1);
    expect(test.stderr).toContain('tests/zero.yaml:4:10: error: `timeout` is not valid: "0s"');
  });
});
