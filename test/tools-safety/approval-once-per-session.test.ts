import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs } from '../support/cli.js';
import { agentctlOnTerminal, NO_TERMINAL, terminalDrivers } from '../support/terminal.js';
import { probeProject, resultsByCall, runMain } from './probe-project.js';

// `once-per-session` asks until the session holds a result of the tool, from a call of the agent
// asking. Ctrl-C at the approval prompt leaves the call without a result; the next run fills in a
// "cancelled" one, which must not count as the approval nobody gave. Another agent's tool of the
// same name, run before a transfer, was allowed under that agent's rules, not this one's.

afterAll(removeTempDirs);

const driver = terminalDrivers()[0];

const PROJECT = `kind: agent
name: main
model: scripted
instruction: Use the tools.
tools: [write_note]
approval: { tools: { write_note: once-per-session } }
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
  - { match: first, tool_calls: [{ id: c1, name: write_note, arguments: { path: a } }] }
  - { match: second, tool_calls: [{ id: c2, name: write_note, arguments: { path: b } }] }
  - text: done
`;

describe.skipIf(!driver)(
  `once-per-session after Ctrl-C at the prompt (${driver?.name ?? NO_TERMINAL})`,
  () => {
    it('the next call of the tool in the session is asked about, not run', async () => {
      const dir = await probeProject({ 'agents/main.yaml': PROJECT });
      const { code, screen } = await agentctlOnTerminal(
        driver!,
        ['run', 'main', 'first', '--session', 's1'],
        [['[y/N] ', '\u0003']],
        { cwd: dir },
      );
      expect(code, screen).toBe(130);
      expect(screen).not.toContain('wrote a');

      // Without a terminal, a call that needs approval pauses the run: it must, and write_note not run.
      const next = await agentctl(['run', 'main', 'second', '--session', 's1', '--json'], { cwd: dir });
      expect(next.code, next.stderr).toBe(0);
      const events = parseNdjson(next.stdout);
      expect(events.filter((e) => e.type === 'tool_result')).toEqual([]);
      expect(events.find((e) => e.type === 'approval_required')).toMatchObject({
        pending: [{ call: { id: 'c2', name: 'write_note' } }],
      });
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    });
  },
);

it("after a transfer, another agent's run of a tool of the same name approves nothing", async () => {
  const dir = await probeProject({
    'scratch/.keep': '',
    'prod/config.txt': 'kept\n',
    'agents/main.yaml': `kind: agent
name: main
model: desk
instruction: Use the tools.
tools: [{ builtin: filesystem, root: ../scratch, options: { approve_writes: false } }]
sub_agents: [prod]
---
kind: agent
name: prod
description: Production files
model: prod-script
instruction: Be careful.
tools: [{ builtin: filesystem, root: ../prod }]
approval: { tools: { write_file: once-per-session } }
---
kind: model
name: desk
provider: offline
model: script
script:
  - tool_calls: [{ id: c1, name: write_file, arguments: { path: a.txt, content: scratch } }]
  - tool_calls: [{ id: c2, name: transfer_to_agent, arguments: { agent_name: prod } }]
---
kind: model
name: prod-script
provider: offline
model: script
script:
  - tool_calls: [{ id: d1, name: write_file, arguments: { path: config.txt, content: overwritten } }]
  - text: done
`,
  });
  const run = await runMain(dir);
  expect(run.code, run.stderr).toBe(0);
  expect(resultsByCall(run.events)).toEqual({
    c1: 'wrote 7 bytes to a.txt',
    c2: 'Transferred to prod.',
  });
  expect(run.events.find((e) => e.type === 'approval_required')).toMatchObject({
    pending: [{ call: { id: 'd1', name: 'write_file' }, agent: 'prod' }],
  });
  expect(await readFile(join(dir, 'prod/config.txt'), 'utf8')).toBe('kept\n');
});
