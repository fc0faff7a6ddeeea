import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../support/cli.js';
import { probeProject, resultsByCall, runMain } from './probe-project.js';

// A command tool with `stdin_json` (or an HTTP tool's default body) hands the program every
// argument of the call, declared or not, and an allow rule on `path` says nothing about the
// others. So a YAML command or HTTP tool's parameters are closed unless they say otherwise, and an
// allow rule on named arguments (in YAML or `--allow`) approves only calls whose arguments are all
// declared; a tool whose schema is open on purpose gets its other calls asked about.

afterAll(removeTempDirs);

const TOOLS = `---
kind: tool
name: note
description: Keeps a note
parameters: { type: object, properties: { path: { type: string } }, required: [path] }
command: { argv: [cat], stdin_json: true }
---
kind: tool
name: open_note
description: Keeps a note, with any other fields
parameters: { type: object, properties: { path: { type: string } }, required: [path], additionalProperties: true }
command: { argv: [cat], stdin_json: true }
---
kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls:
      - { id: c1, name: note, arguments: { path: notes/a } }
      - { id: c2, name: note, arguments: { path: notes/a, mode: "0777" } }
      - { id: c3, name: open_note, arguments: { path: notes/a, target: /etc/passwd } }
      - { id: c4, name: open_note, arguments: { path: notes/b } }
  - text: done
`;

const agent = (approval: string) => `kind: agent
name: main
model: scripted
instruction: Use the tools.
tools: [note, open_note]
${approval}
${TOOLS}`;

describe.concurrent('arguments a tool does not declare', () => {
  for (const [how, approval, flags] of [
    ['allow rules in the YAML', 'approval: { allow: ["note:path=notes/*", "open_note:path=notes/*"] }', []],
    ['--allow rules', '', ['--allow', 'note:path=notes/*', '--allow', 'open_note:path=notes/*']],
  ] as const) {
    it(`never reach a command tool unasked (${how})`, async () => {
      const dir = await probeProject({ 'agents/main.yaml': agent(approval) });
      const run = await runMain(dir, [...flags]);
      expect(run.code, run.stderr).toBe(0);
      expect(resultsByCall(run.events)).toEqual({
        c1: '{"path":"notes/a"}',
        // Closed by default: the model is told, and nothing runs.
        c2: 'Invalid arguments for note: arguments must NOT have additional properties ("mode"). Fix the arguments and call again.',
        c4: '{"path":"notes/b"}',
      });
      // Open on purpose: the call runs only once someone approves it; the allow rule is about `path`.
      expect(run.events.find((e) => e.type === 'approval_required')).toMatchObject({
        pending: [{ call: { id: 'c3', name: 'open_note' } }],
      });
      expect(run.events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    });
  }
});
