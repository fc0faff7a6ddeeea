import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempDir } from './support/cli.js';

// `writer` fails on its model call inside the `pipeline` sequence; `breaker`'s tool fails inside the
// `fan` parallel agent; `boss` calls the whole pipeline as an agent tool; `solo` fails on its own.
const AGENTS = `kind: agent
name: pipeline
description: Researches, then writes
type: sequential
sub_agents: [research, writer]
---
kind: agent
name: research
description: Finds things
model: offline/echo
---
kind: agent
name: writer
description: Writes
model: failing
---
kind: agent
name: solo
description: Fails alone
model: failing
---
kind: model
name: failing
provider: offline
model: script
script: ../scripts/failing.yaml
---
kind: agent
name: fan
description: Both at once
type: parallel
sub_agents: [echoer, breaker]
---
kind: agent
name: echoer
description: Echoes
model: offline/echo
---
kind: agent
name: breaker
description: Calls a tool that fails
model: breaking
tools: [boom]
---
kind: model
name: breaking
provider: offline
model: script
script: ../scripts/breaking.yaml
---
kind: tool
name: boom
description: Fails
parameters: { type: object, properties: {} }
command: { argv: [sh, -c, "echo nope >&2; exit 3"] }
needs_approval: false
---
kind: agent
name: boss
description: Asks the pipeline
model: bossing
tools: [{ agent: pipeline }]
---
kind: model
name: bossing
provider: offline
model: script
script: ../scripts/boss.yaml
`;

let project: string;
beforeAll(async () => {
  project = await tempDir('agentctl-tree-errors-');
  await mkdir(join(project, 'agents'));
  await mkdir(join(project, 'scripts'));
  await writeFile(join(project, 'agentctl.yaml'), 'kind: project\nname: tree-errors\n');
  await writeFile(join(project, 'agents', 'tree.yaml'), AGENTS);
  await writeFile(
    join(project, 'scripts', 'failing.yaml'),
    '- error: { message: "upstream exploded", code: MODEL_ERROR }\n',
  );
  await writeFile(
    join(project, 'scripts', 'breaking.yaml'),
    '- tool_calls: [{ id: c1, name: boom, arguments: {} }]\n- text: broke it\n',
  );
  await mkdir(join(project, 'tests'));
  await writeFile(
    join(project, 'tests', 'pipeline.yaml'),
    'kind: test\nname: pipeline-writes\nagent: pipeline\nturns:\n  - user: hi\n    expect: { output: { contains: hi } }\n',
  );
  await writeFile(
    join(project, 'scripts', 'boss.yaml'),
    '- tool_calls: [{ id: p1, name: pipeline, arguments: { request: go } }]\n- text: finished anyway\n',
  );
});
afterAll(removeTempDirs);

const run = (...args: string[]) => agentctl(['run', ...args], { cwd: project });

describe('an error inside an agent tree names the agent', () => {
  it('a model error in a sequential agent: its path in text and in --json, with the same code and exit', async () => {
    const text = await run('pipeline', 'hi');
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error [MODEL_ERROR] in pipeline › writer: upstream exploded\n');

    const json = await run('pipeline', 'hi', '--json');
    expect(json.code).toBe(1);
    const errors = parseNdjson(json.stdout).filter((e) => e.type === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'MODEL_ERROR',
        message: 'upstream exploded',
        agentPath: ['pipeline', 'writer'],
      }),
    ]);
  });

  it('a single agent keeps its line as it was (it is the only agent); --json still has the field', async () => {
    const text = await run('solo', 'hi');
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error [MODEL_ERROR]: upstream exploded\n');
    const json = await run('solo', 'hi', '--json');
    expect(parseNdjson(json.stdout).find((e) => e.type === 'error')).toMatchObject({ agentPath: ['solo'] });
  });

  it('a tool error in a parallel branch says which agent called the tool', async () => {
    const result = await run('fan', 'hi');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      '  ← boom in fan › breaker: Tool boom failed: sh exited with 3: nope [TOOL_EXECUTION_ERROR]',
    );
  });

  it('inside an agent tool, the path runs from the top: on the child error and the tool result', async () => {
    const text = await run('boss', 'hi');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('error [MODEL_ERROR] in boss › pipeline › writer: upstream exploded\n');
    expect(text.stderr).toContain(
      '  ← pipeline: Tool pipeline failed in agent boss › pipeline › writer: upstream exploded',
    );
    const json = await run('boss', 'hi', '--json');
    const events = parseNdjson(json.stdout);
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      agentPath: ['boss', 'pipeline', 'writer'],
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('agentctl test: a step that failed says in which agent', async () => {
    const result = await agentctl(['test'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('MODEL_ERROR in pipeline › writer: upstream exploded');
  });
});
