import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempProject } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { readSse, type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';
import { startWorker, stopWorkers, type WorkerProcess } from './support/worker.js';

// A module middleware whose code failed where nothing awaited it (a timer's throw) ended the whole
// `agentctl serve` process, every run in flight with it, and an `agentctl worker` with its jobs.
// It is the failure of the one run whose middleware it was; the server and the worker go on.

// Runs whose input says "pair" wait for each other, and the calm one goes on only once the
// other's timer has thrown: the failure lands while another run is in flight, however fast.
const MIDDLEWARE = `const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const paired = new Set();
let thrown = false;
export default async function flaky(action, next) {
  if (action.type !== 'model_call') return next();
  const text = JSON.stringify(action.payload.request.messages);
  if (text.includes('quit')) process.exit(0);
  const boom = text.includes('boom');
  if (text.includes('pair')) {
    paired.add(boom ? 'boom' : 'calm');
    while (paired.size < 2) await sleep(5);
  }
  if (boom) {
    setTimeout(() => { thrown = true; throw new Error('stray boom in flaky'); }, 0);
    await sleep(500);
  } else if (text.includes('pair')) {
    while (!thrown) await sleep(5);
    await sleep(20);
  }
  return next();
}
`;

const PROJECT = {
  'agentctl.yaml': 'kind: project\nname: strays\n',
  'agents/desk.yaml': `kind: agent
name: desk
model: offline/echo
instruction: Answer.
middleware: [flaky]
---
kind: middleware
name: flaky
module: ../mw/flaky.js
`,
  'mw/flaky.js': MIDDLEWARE,
  '.env': 'BILLING_KEY=sk-billing-secret-0123456789\n',
  'agents/tooly.yaml': `kind: agent
name: tooly
model: scripted
instruction: Use the tools.
tools: [rejects, late]
---
kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: r, name: rejects, arguments: {} }]
  - tool_calls: [{ id: l, name: late, arguments: {} }]
  - text: done
---
kind: model
name: billing
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:9/v1
api_key: \${BILLING_KEY}
---
kind: tool
name: rejects
module: { path: ../tools/strays.js, export: rejects }
---
kind: tool
name: late
module: { path: ../tools/strays.js, export: late }
`,
  'tools/strays.js': `export const rejects = { name: 'rejects', description: 'x', execute: async () => {
  Promise.reject(new Error('refused'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return 'finished';
} };
export const late = { name: 'late', description: 'x', execute: async () => {
  setTimeout(() => { throw new Error('late with sk-billing-secret-0123456789'); }, 30);
  return 'returned';
} };
`,
};

let dir: string;
let server: ServeProcess;
let watching: ServeProcess;
let worker: WorkerProcess;
let redis: RedisProcess;

beforeAll(async () => {
  dir = await tempProject(PROJECT);
  redis = await startRedis();
  const env = { AGENTCTL_QUEUE_URL: redis.url };
  server = await startServe(dir, [], env);
  watching = await startServe(dir, ['--watch'], env);
  worker = await startWorker(dir, [], env);
}, 60_000);
afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await removeTempDirs();
});

const run = (input: string, extra: Record<string, unknown> = {}, on = server, agent = 'desk') =>
  fetch(`${on.url}/agents/${agent}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input, ...extra }),
  });

describe('agentctl serve: a module middleware failing where nothing awaits it', () => {
  it('fails that run only: a run in flight beside it completes, and the server answers the next', async () => {
    const [boom, calm] = await Promise.all([
      run('boom pair', { stream: false }).then((r) => r.json()),
      run('calm pair', { stream: false }).then((r) => r.json()),
    ]);
    expect(boom).toMatchObject({ status: 'error', error: { code: 'CONFIG_ERROR' } });
    expect(calm).toMatchObject({ status: 'complete', output: 'calm pair' });
    expect(server.stderr()).toContain(
      'middleware `flaky` (mw/flaky.js) failed during model_call: stray boom in flaky (thrown by code of middleware `flaky` that nothing awaited',
    );
    expect(server.stderr()).not.toMatch(/\n\s+at /);
    const after = await (await run('calm again', { stream: false })).json();
    expect(after).toMatchObject({ status: 'complete', output: 'calm again' });
  });

  it('a queued run: fails that run, and the worker runs the next one', async () => {
    const boom = await (await run('boom', { async: true })).json();
    const boomEvents = await readSse(await fetch(`${server.url}${boom.events}`));
    const boomEnd = JSON.parse(boomEvents.find((e) => e.event === 'end')!.data);
    expect(boomEnd).toMatchObject({ status: 'error', code: 'CONFIG_ERROR' });
    const calm = await (await run('calm after', { async: true })).json();
    const calmEvents = await readSse(await fetch(`${server.url}${calm.events}`));
    const calmEnd = JSON.parse(calmEvents.find((e) => e.event === 'end')!.data);
    expect(calmEnd).toMatchObject({ status: 'complete', output: 'calm after' });
    expect(worker.stderr()).not.toMatch(/\n\s+at /);
  });
});

// Under --watch (and in dev) module code runs in a worker: such a failure ended the worker, the run
// waited for good, and so did every later run of that build.
describe('agentctl serve --watch: module code failing where nothing awaits it, in the module worker', () => {
  it('fails that run only: a run in flight beside it completes, and the server answers the next', async () => {
    const [boom, calm] = await Promise.all([
      run('boom pair', { stream: false }, watching).then((r) => r.json()),
      run('calm pair', { stream: false }, watching).then((r) => r.json()),
    ]);
    expect(boom).toMatchObject({ status: 'error', error: { code: 'CONFIG_ERROR' } });
    expect(calm).toMatchObject({ status: 'complete', output: 'calm pair' });
    expect(watching.stderr()).toContain(
      'middleware `flaky` (mw/flaky.js) failed during model_call: stray boom in flaky (thrown by code of middleware `flaky` that nothing awaited',
    );
    const after = await (await run('calm again', { stream: false }, watching)).json();
    expect(after).toMatchObject({ status: 'complete', output: 'calm again' });
  });

  it("fails a module tool's call with its error, and warns of a late one with secrets hidden", async () => {
    const body = await (await run('go', { stream: false }, watching, 'tooly')).json();
    expect(body).toMatchObject({ status: 'complete', output: 'done' });
    const results = Object.fromEntries(
      (body.messages as Array<{ role: string; toolCallId?: string; content: string }>)
        .filter((m) => m.role === 'tool')
        .map((m) => [m.toolCallId, m.content]),
    );
    expect(results.r).toMatch(
      /^Tool rejects failed: refused \(thrown by code of rejects that nothing awaited/,
    );
    expect(results.l).toBe('returned');
    await waitFor(
      () =>
        watching
          .stderr()
          .includes('code of tool `late` failed after its call had ended (ignored): late with ***'),
      'the late failure on stderr',
    );
    expect(watching.stderr()).not.toContain('sk-billing-secret');
    expect(watching.stderr()).not.toMatch(/\n\s+at /);
  });

  // Last: it stops this server's module worker for good (until a save).
  it('a worker that stopped all the same fails the next run at once, rather than leave it waiting', async () => {
    const quit = await (await run('quit', { stream: false }, watching)).json();
    expect(quit).toMatchObject({ status: 'error' });
    const next = await (await run('calm', { stream: false }, watching)).json();
    expect(next).toMatchObject({ status: 'error', error: { code: 'CONFIG_ERROR' } });
    expect(watching.stderr()).toContain(
      'the module worker stopped (exit code 0; does the module call process.exit?)',
    );
  });
});
