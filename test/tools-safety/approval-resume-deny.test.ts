import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs } from '../support/cli.js';
import { startServe, stopServers } from '../support/serve.js';
import { probeProject, resultsByCall, runMain } from './probe-project.js';

// A paused call waits for a person, maybe for days; the project can change meanwhile. Deny is
// documented to beat everything, so an approval given at resume time does not run a call that a
// deny rule written since then matches, nor one whose arguments the tool's schema now refuses.
// serve's decisions resume through the same runner.

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const PROJECT = `kind: agent
name: main
model: scripted
instruction: Use the tools.
tools: [write_note]
approval: { tools: { write_note: always } }
---
kind: tool
name: write_note
description: Writes a note (here it only echoes)
parameters: { type: object, properties: { path: { type: string } }, required: [path] }
command: { argv: [echo, "wrote {{ args.path }}"] }
---
kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: c1, name: write_note, arguments: { path: secret } }, { id: c2, name: write_note, arguments: { path: notes } }]
  - text: done
`;

// A session paused on c1 and c2, then a deny rule on c1's arguments written into the project.
async function pausedThenDenied(): Promise<string> {
  const dir = await probeProject({ 'agents/main.yaml': PROJECT });
  const paused = await runMain(dir, ['--session', 's1']);
  expect(paused.code, paused.stderr).toBe(0);
  expect(paused.events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
  const file = join(dir, 'agents/main.yaml');
  const yaml = await readFile(file, 'utf8');
  await writeFile(
    file,
    yaml.replace(
      'approval: { tools: { write_note: always } }',
      'approval: { tools: { write_note: always }, deny: [{ tool: write_note, args: { path: secret } }] }',
    ),
  );
  return dir;
}

const OVERRULED = 'The call was not run: a deny rule matches it, and deny wins over an approval.';

it('an approval given after a deny rule was added is refused, and says why', async () => {
  const dir = await pausedThenDenied();
  const resumed = await agentctl(
    ['run', 'main', '--session', 's1', '--approve', 'c1', '--approve', 'c2', '--json'],
    { cwd: dir },
  );
  expect(resumed.code, resumed.stderr).toBe(0);
  const events = parseNdjson(resumed.stdout);
  expect(resultsByCall(events)).toEqual({ c1: OVERRULED, c2: 'wrote notes' });
  expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
});

it('a decision sent to serve is held to the deny rules too', async () => {
  const dir = await pausedThenDenied();
  const server = await startServe(dir);
  const response = await fetch(`${server.url}/sessions/s1/decisions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      decisions: [
        { callId: 'c1', decision: 'approve' },
        { callId: 'c2', decision: 'approve' },
      ],
      stream: false,
    }),
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ status: 'complete' });
  const log = (await (await fetch(`${server.url}/sessions/s1`)).json()) as {
    events: Array<Record<string, unknown> & { type: string }>;
  };
  expect(resultsByCall(log.events)).toEqual({ c1: OVERRULED, c2: 'wrote notes' });
});

it("an approved call whose arguments the tool's schema now refuses goes back to the model, unrun", async () => {
  const dir = await probeProject({ 'agents/main.yaml': PROJECT });
  const paused = await runMain(dir, ['--session', 's1']);
  expect(paused.events.at(-1), paused.stderr).toMatchObject({ type: 'run_end', status: 'paused' });

  const file = join(dir, 'agents/main.yaml');
  const yaml = await readFile(file, 'utf8');
  await writeFile(file, yaml.replace('path: { type: string }', 'path: { type: string, pattern: "^notes" }'));
  const resumed = await agentctl(
    ['run', 'main', '--session', 's1', '--approve', 'c1', '--approve', 'c2', '--json'],
    { cwd: dir },
  );
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resultsByCall(parseNdjson(resumed.stdout))).toEqual({
    c1: 'Invalid arguments for write_note: arguments.path must match pattern "^notes". Fix the arguments and call again.',
    c2: 'wrote notes',
  });
});
