import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { startServe, stopServers } from './support/serve.js';

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

// A module tool's endless loop holds the main thread: no timer runs again, so its timeout never
// fires and Ctrl-C's handler never runs. `spin` loops for good (timeout 1.5 s); `busy` works
// synchronously for `ms` milliseconds and returns (timeout 1 s); `nap` works 300 ms (timeout 3 s).
const TOOLS = {
  'tools/quit.js': `export default { name: 'quit', description: 'ends the process', execute: () => process.exit(0) };\n`,
  'tools/spin.js': `export default { name: 'spin', description: 'loops', execute: () => { for (;;) {} } };\n`,
  'tools/busy.js': `export default {
  name: 'busy',
  description: 'works without yielding',
  execute: ({ ms }) => { const end = Date.now() + ms; while (Date.now() < end) {} return 'worked ' + ms; },
};\n`,
};

function agent(name: string, tool: string, args: Record<string, unknown>): string {
  const turns = [{ tool_calls: [{ name: tool, arguments: args, id: `${name}_1` }] }, { text: 'done' }];
  return `kind: agent
name: ${name}
model: ${name}_model
tools: [${tool}]
---
kind: model
name: ${name}_model
provider: offline
model: script
script: ${JSON.stringify(turns)}
`;
}

const project = () =>
  tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/tools.yaml': `kind: tool
name: spin
module: { path: ../tools/spin.js }
timeout: 1.5s
---
kind: tool
name: quit
module: { path: ../tools/quit.js }
---
kind: tool
name: busy
module: { path: ../tools/busy.js }
parameters: { type: object, properties: { ms: { type: number } } }
timeout: 1s
---
kind: tool
name: nap
module: { path: ../tools/busy.js }
parameters: { type: object, properties: { ms: { type: number } } }
timeout: 3s
`,
    'agents/spinner.yaml': agent('spinner', 'spin', {}),
    'agents/long-spinner.yaml': `${agent('long_spinner', 'spin_long', {})}---
kind: tool
name: spin_long
module: { path: ../tools/spin.js }
timeout: 10m
`,
    'tests/long-spinner.yaml':
      'kind: test\nname: spins-long\nagent: long_spinner\ntimeout: 1s\nturns:\n  - user: go\n',
    'agents/quitter.yaml': agent('quitter', 'quit', {}),
    'tests/quitter.yaml':
      'kind: test\nname: quits\nagent: quitter\nturns:\n  - user: go\n    expect: { output: { contains: done } }\n',
    'agents/worker.yaml': agent('worker', 'nap', { ms: 300 }),
    'agents/slowpoke.yaml': agent('slowpoke', 'busy', { ms: 2500 }),
    'tests/spinner.yaml':
      'kind: test\nname: spins\nagent: spinner\nturns:\n  - user: go\n    expect: { output: { contains: done } }\n',
    ...TOOLS,
  });

const STOPPED = 'agentctl: tool `spin` is past its 1.5 s timeout and has held the main thread';

describe('a tool that never yields the main thread', () => {
  it('ends `run` at its timeout, naming the tool, and the session stays readable', async () => {
    const dir = await project();
    const started = performance.now();
    const run = await agentctl(['run', 'spinner', 'go', '--session', 's1'], { cwd: dir, timeoutMs: 20_000 });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(STOPPED);
    expect(run.stderr).toMatch(/without yielding \(an endless loop, or long synchronous work\?\); stopped\n/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // 1.5 s timeout, a second of being held at most, the watchdog's 100 ms beat: not 20 s.
    expect(performance.now() - started).toBeLessThan(12_000);
    const show = await agentctl(['sessions', 'show', 's1', '--json'], { cwd: dir });
    expect(show.code, show.stderr).toBe(0);
    // Written before the tool ran: the prompt and the model's call of the tool.
    type Stored = {
      type: string;
      message?: { role: string; content: string | null; toolCalls?: { name: string }[] };
    };
    const events = (JSON.parse(show.stdout) as { session: { events: Stored[] } }).session.events;
    const messages = events.flatMap((e) =>
      e.message ? [[e.message.role, e.message.content ?? e.message.toolCalls?.map((c) => c.name)]] : [],
    );
    expect(messages).toEqual([
      ['user', 'go'],
      ['assistant', ['spin']],
    ]);
    // The text transcript shows the call the run died in, and that it never got a result.
    const text = await agentctl(['sessions', 'show', 's1'], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      'user: go\n  → spin({})\n    ✗ no result: the run stopped before this call finished\n',
    );
  });

  it('ends `agentctl test` the same way rather than hang CI', async () => {
    const dir = await project();
    const test = await agentctl(['test', 'spins'], { cwd: dir, timeoutMs: 20_000 });
    expect(test.code).not.toBe(0);
    expect(test.stderr).toContain(STOPPED);
  });

  it("ends `agentctl test` at the test's timeout when that comes before the tool's", async () => {
    const dir = await project();
    // The tool may take 10 minutes; the test gives it 1 s, and no timer of the test can fire.
    const test = await agentctl(['test', 'spins-long'], { cwd: dir, timeoutMs: 20_000 });
    expect(test.code).not.toBe(0);
    expect(test.stderr).toContain(
      'agentctl: tool `spin_long` is still running at the end of the 1 s timeout of test `spins-long` and has held the main thread',
    );
  });

  it('lets synchronous work within its timeout finish: no warning, no stop', async () => {
    const dir = await project();
    const run = await agentctl(['run', 'worker', 'go', '--json'], { cwd: dir, timeoutMs: 20_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('worked 300');
    expect(run.stderr).not.toContain('agentctl: ');
  });

  it('warns under `serve` instead, and the server answers once the tool returns', async () => {
    const dir = await project();
    const server = await startServe(dir);
    const response = await fetch(`${server.url}/agents/slowpoke/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'go', stream: false }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { output: string };
    expect(body.output).toBe('done');
    expect(server.stderr()).toContain(
      'agentctl: warning: tool `busy` is past its 1 s timeout and has held the main thread',
    );
    expect(server.stderr()).toContain('everything else in this process waits for it');
  });
});

// A tool that calls process.exit(0) ends the process with the run unfinished: a script or CI must
// not read that as a success.
describe('a tool that ends the process with exit code 0', () => {
  const CUT =
    'agentctl: the process was ended (process.exit) while tool `quit` ran, before the run finished; exit code 1\n';
  it('fails `run` (exit 1), saying so', async () => {
    const dir = await project();
    const run = await agentctl(['run', 'quitter', 'go'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(CUT);
  });

  it('fails `agentctl test` (exit 1), saying so', async () => {
    const dir = await project();
    const test = await agentctl(['test', 'quits'], { cwd: dir });
    expect(test.code).toBe(1);
    expect(test.stderr).toContain(CUT);
  });
});
