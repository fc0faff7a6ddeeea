import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, removeTempDirs, tempProject } from './support/cli.js';
import { waitFor } from './support/wait-for.js';

afterAll(removeTempDirs);

const AGENTS = `kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: call_1, name: note, arguments: { text: "order ACME-1234 for bob" } }]
  - text: Done.
---
kind: middleware
name: mask
module: ../mw/mask.js
---
kind: middleware
name: plain_mask
module: ../mw/plain-mask.js
---
kind: agent
name: factory
model: scripted
tools: [{ module: ../tools/note.js }]
middleware: [mask]
---
kind: agent
name: direct
model: scripted
tools: [{ module: ../tools/note.js }]
middleware: [plain_mask]
`;

const MASK = `const mask = async (action, next) => next();
mask.redactsCalls = (text) => text.replace(/ACME-\\d+/g, '<order>');
`;

const NOTE = `import { appendFileSync } from 'node:fs';
export default {
  name: 'note',
  description: 'Notes a text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: async ({ text }) => {
    appendFileSync(new URL('../received.txt', import.meta.url), text + '\\n');
    return 'noted';
  },
};
`;

// The output of one `run --watch` until its first run ended.
async function watchedRun(dir: string, agent: string): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'run', agent, 'hi', '--watch', '--session', agent], {
    cwd: dir,
    env: cliEnv(),
    stdio: 'pipe',
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  try {
    await waitFor(() => output.includes('── run on generation 1 ended'), 'the run ended', 20_000);
  } finally {
    child.kill('SIGINT');
    await exited;
  }
  return output;
}

// Under --watch (and dev) module middleware runs in a worker; its redactsCalls applies all the same.
describe("a module middleware's redactsCalls under run --watch", () => {
  it('redacts the recorded call (terminal, session) while the tool runs with it as made', async () => {
    const dir = await tempProject({
      'agents/a.yaml': AGENTS,
      'mw/mask.js': `export default function make() {\n${MASK}  return mask;\n}\n`,
      'mw/plain-mask.js': `${MASK}export default mask;\n`,
      'tools/note.js': NOTE,
    });
    for (const agent of ['factory', 'direct']) {
      const output = await watchedRun(dir, agent);
      expect(output, agent).toContain('→ note({"text":"order <order> for bob"})');
      expect(output, agent).not.toContain('ACME');
      const session = await readFile(join(dir, `.agentctl/sessions/${agent}.jsonl`), 'utf8');
      expect(session, agent).toContain('"argumentsRedacted":true');
      expect(session, agent).not.toContain('ACME');
    }
    expect(await readFile(join(dir, 'received.txt'), 'utf8')).toBe('order ACME-1234 for bob\n'.repeat(2));
  });

  // The user's rule failing is the project's mistake, said as such, and the call does not run.
  it('a redactsCalls that throws ends the run as a CONFIG_ERROR naming it, in run and under --watch', async () => {
    const broken = `const mask = async (action, next) => next();
mask.redactsCalls = () => { throw new Error('mask broke'); };
`;
    const dir = await tempProject({
      'agents/a.yaml': AGENTS,
      'mw/mask.js': `export default function make() {\n${broken}  return mask;\n}\n`,
      'mw/plain-mask.js': `${broken}export default mask;\n`,
      'tools/note.js': NOTE,
    });
    const said = (name: string, file: string) =>
      `error [CONFIG_ERROR]: middleware \`${name}\` (${file}) failed redacting a tool call's arguments (redactsCalls): mask broke`;
    const plain = await agentctl(['run', 'direct', 'hi'], { cwd: dir });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(said('plain_mask', 'mw/plain-mask.js'));
    expect(await watchedRun(dir, 'factory')).toContain(said('mask', 'mw/mask.js'));
    await expect(readFile(join(dir, 'received.txt'), 'utf8')).rejects.toThrow();
  });
});
