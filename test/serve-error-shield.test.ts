import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Task, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, sendParams, userMessage } from './support/a2a-client.js';
import { removeTempDirs, tempProject } from './support/cli.js';
import { type RedisProcess, startRedis } from './support/redis.js';
import { readSse, type ServeProcess, startServe, stopServers } from './support/serve.js';
import { waitFor } from './support/wait-for.js';
import { startWorker, stopWorkers } from './support/worker.js';

// A run that fails inside the server: a module middleware that throws a plain Error once the model
// has answered, which ends the run as the project's CONFIG_ERROR naming the middleware (never the
// model's or a tool's fault), an error whose text is the operator's. Its text is what a store's failure looks like: a host, a database, a user.
const SECRET = 'password authentication failed for user "admin" at db.internal:5432/prod';
const PROJECT = {
  'agentctl.yaml': 'kind: project\n',
  'mw/leak.js': `export default async function leak(action, next) {
  const out = await next();
  if (action.type === 'loop_end') throw new Error(${JSON.stringify(SECRET)});
  return out;
}\n`,
  'agents/broken.yaml': `kind: middleware
name: leak
module: ../mw/leak.js
---
kind: agent
name: broken
description: Fails inside the server after answering.
model: offline/echo
middleware: [leak]
---
kind: agent
name: capped
description: Stops at its limit, an error that is the client's to read.
model: offline/auto
instruction: Refund the order.
limits: { max_iterations: 1 }
tools: [refund]
---
kind: tool
name: refund
description: Refunds an order
parameters:
  type: object
  properties:
    order: { type: string, description: The order id }
  required: [order]
command:
  argv: [echo, refunded]
needs_approval: false
`,
};

const CODE = 'CONFIG_ERROR';
const FULL = `middleware \`leak\` (mw/leak.js) failed during loop_end: ${SECRET}`;
const GENERIC = /^internal error \(ref ([0-9a-f]{12})\)$/;

let dir: string;
let server: ServeProcess;
let exposed: ServeProcess;
let redis: RedisProcess;

beforeAll(async () => {
  dir = await tempProject(PROJECT);
  redis = await startRedis();
  const env = { AGENTCTL_QUEUE_URL: redis.url };
  server = await startServe(dir, [], env);
  exposed = await startServe(dir, ['--expose-errors'], env);
  await startWorker(dir, [], env);
}, 60_000);
afterAll(async () => {
  await stopWorkers();
  await stopServers();
  await redis?.stop();
  await removeTempDirs();
});

const post = (on: ServeProcess, path: string, body: unknown) =>
  fetch(`${on.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The ref of a generic message, after checking the server logged the secret with it. */
async function loggedRef(message: string, on: ServeProcess = server): Promise<string> {
  expect(message).not.toContain('db.internal');
  const ref = GENERIC.exec(message)?.[1];
  expect(ref, message).toBeDefined();
  await waitFor(
    () => on.stderr().includes(`${CODE} (ref ${ref})`) && on.stderr().includes(SECRET),
    `ref ${ref} and the full text on stderr`,
  );
  const line = on
    .stderr()
    .split('\n')
    .find((l) => l.includes(`(ref ${ref})`));
  expect(line).toContain(SECRET);
  return ref!;
}

describe('agentctl serve: what a client reads of an internal failure', () => {
  it('native SSE: the error event keeps its code and gets a ref; the session file keeps the text', async () => {
    const response = await post(server, '/agents/broken/runs', { input: 'hello' });
    const sessionId = response.headers.get('x-agentctl-session')!;
    const events = await readSse(response);
    const text = events.map((e) => e.data).join('\n');
    expect(text).not.toContain('db.internal');
    const error = JSON.parse(events.find((e) => e.event === 'error')!.data);
    expect(error.code).toBe(CODE);
    const ref = await loggedRef(error.message);
    expect(error.context).toEqual({ blame: 'config', retryable: false, ref });
    // The operator's copy is whole; a client reading the session over HTTP gets the same ref.
    const file = await readFile(join(dir, '.agentctl', 'sessions', `${sessionId}.jsonl`), 'utf8');
    expect(file).toContain('db.internal');
    const session = await (await fetch(`${server.url}/sessions/${sessionId}`)).json();
    expect(JSON.stringify(session)).not.toContain('db.internal');
    expect(session.events.find((e: { type: string }) => e.type === 'error').message).toBe(error.message);
  });

  it('native JSON: the result error has the code and the ref, not the text', async () => {
    const response = await post(server, '/agents/broken/runs', { input: 'hello', stream: false });
    const body = await response.json();
    expect(body).toMatchObject({ status: 'error', error: { code: CODE } });
    await loggedRef(body.error.message);
  });

  it('the OpenAI-compatible endpoint, answered and streamed', async () => {
    const chat = { model: 'broken', messages: [{ role: 'user', content: 'hello' }] };
    const answered = await post(server, '/v1/chat/completions', chat);
    expect(answered.status).toBe(502);
    const { error } = await answered.json();
    expect(error).toMatchObject({ code: CODE, type: 'server_error' });
    await loggedRef(error.message);
    const streamed = await readSse(await post(server, '/v1/chat/completions', { ...chat, stream: true }));
    const failure = streamed.map((e) => JSON.parse(e.data)).find((d) => d.error)?.error;
    expect(failure.code).toBe(CODE);
    await loggedRef(failure.message);
  });

  it('A2A: a sent message and a streamed one end failed with the ref', async () => {
    const client = await a2aClient(server.url, 'broken');
    const sent = (await client.sendMessage(sendParams(userMessage('hello')))) as Task;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = sent?.status?.message?.parts[0]?.content;
    await loggedRef(said?.$case === 'text' ? said.value : '');
    let last = '';
    for await (const event of client.sendMessageStream(sendParams(userMessage('hello again')))) {
      expect(JSON.stringify(event)).not.toContain('db.internal');
      if (event.payload?.$case === 'statusUpdate') {
        const part = event.payload.value.status?.message?.parts[0]?.content;
        if (part?.$case === 'text') last = part.value;
      }
    }
    await loggedRef(last);
  });

  it('a queued run: its error event and its end carry one ref', async () => {
    const queued = await (await post(server, '/agents/broken/runs', { input: 'hello', async: true })).json();
    const events = await readSse(await fetch(`${server.url}${queued.events}`));
    expect(events.map((e) => e.data).join('\n')).not.toContain('db.internal');
    const error = JSON.parse(events.find((e) => e.event === 'error')!.data);
    const end = JSON.parse(events.find((e) => e.event === 'end')!.data);
    expect(end).toMatchObject({ status: 'error', code: CODE });
    expect(end.message).toBe(error.message);
    await loggedRef(end.message);
  });

  it("an error that is the client's business keeps its words", async () => {
    const response = await post(server, '/agents/capped/runs', { input: 'refund order 7', stream: false });
    const body = await response.json();
    expect(body.error.code).toBe('MAX_ITERATIONS_EXCEEDED');
    expect(body.error.message).toContain('limit of 1');
  });

  it('--expose-errors sends the text as run --json prints it', async () => {
    const events = await readSse(await post(exposed, '/agents/broken/runs', { input: 'hello' }));
    const error = JSON.parse(events.find((e) => e.event === 'error')!.data);
    expect(error).toMatchObject({ code: CODE, message: FULL });
    const queued = await (await post(exposed, '/agents/broken/runs', { input: 'hi', async: true })).json();
    const end = (await readSse(await fetch(`${exposed.url}${queued.events}`))).at(-1)!;
    expect(JSON.parse(end.data)).toMatchObject({ code: CODE, message: FULL });
  });
});
