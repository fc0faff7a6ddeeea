import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// A tool that writes what it received, so the test sees the arguments it ran with.
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

const TEXT = 'mail bob@example.com about ACME-123456 with tok-very-secret-4242';

function agents(approval: string): string {
  return `kind: model
name: scripted
provider: offline
model: script
script:
  - tool_calls: [{ id: call_1, name: note, arguments: { text: "${TEXT}" } }]
  - text: Done.
  - tool_calls: [{ id: call_2, name: note, arguments: { text: "${TEXT}" } }]
  - text: Again.
---
kind: model
name: keyed
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:9/v1
api_key: \${DEPLOY_TOKEN}
---
kind: agent
name: unused
model: keyed
---
kind: agent
name: desk
model: scripted
tools:
  - module: ../tools/note.js
middleware: [{ redaction: { patterns: ["ACME-\\\\d{6}"] } }]
${approval}
`;
}

const REDACTED = 'mail [REDACTED] about [REDACTED] with ***';

async function sessionText(dir: string): Promise<string> {
  const folder = join(dir, '.agentctl/sessions');
  const files = await readdir(folder);
  return (await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8')))).join('\n');
}

describe('the arguments of tool calls in what a run records', () => {
  it('are redacted in --json and the session, while the tool runs with them as the model made them', async () => {
    const dir = await tempProject({
      'agents/desk.yaml': agents('approval: { tools: { note: never } }'),
      'tools/note.js': NOTE,
      '.env': 'DEPLOY_TOKEN=tok-very-secret-4242\n',
    });
    const result = await agentctl(['run', 'desk', 'note it', '--json', '--session', 'one'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(dir, 'received.txt'), 'utf8')).toBe(`${TEXT}\n`);
    const events = parseNdjson(result.stdout);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({
      call: { id: 'call_1', arguments: { text: REDACTED }, argumentsRedacted: true },
    });
    const answer = events.find((e) => e.type === 'message' && e.author === 'desk');
    expect(answer).toMatchObject({ message: { toolCalls: [{ arguments: { text: REDACTED } }] } });
    for (const leak of ['bob@example.com', 'ACME-123456', 'tok-very-secret-4242']) {
      expect(result.stdout).not.toContain(leak);
      expect(await sessionText(dir)).not.toContain(leak);
    }
    // The session goes on in a new process, from the calls as recorded (the script knows its own
    // turns in them by name); the terminal shows the new call redacted too.
    const again = await agentctl(['run', 'desk', 'and again', '--session', 'one'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('Again.\n');
    expect(again.stderr).toContain(`→ note(${JSON.stringify({ text: REDACTED })})`);
    expect(await readFile(join(dir, 'received.txt'), 'utf8')).toBe(`${TEXT}\n${TEXT}\n`);
  });

  it('a call that waits for approval runs, once approved in a new process, with its arguments as made', async () => {
    const dir = await tempProject({
      'agents/desk.yaml': agents('approval: { tools: { note: always } }'),
      'tools/note.js': NOTE,
      '.env': 'DEPLOY_TOKEN=tok-very-secret-4242\n',
    });
    const paused = await agentctl(['run', 'desk', 'note it', '--json', '--session', 'two'], { cwd: dir });
    expect(paused.code, paused.stderr).toBe(0);
    const events = parseNdjson(paused.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'paused' });
    // The person deciding sees what would run; the model's answer is recorded redacted.
    expect(events.at(-2)).toMatchObject({
      type: 'approval_required',
      pending: [{ call: { arguments: { text: TEXT } } }],
    });
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({
      call: { arguments: { text: REDACTED } },
    });
    const approved = await agentctl(['run', 'desk', '--session', 'two', '--approve', 'call_1', '--json'], {
      cwd: dir,
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(parseNdjson(approved.stdout).at(-1)).toMatchObject({
      type: 'run_end',
      status: 'complete',
      output: 'Done.',
    });
    expect(await readFile(join(dir, 'received.txt'), 'utf8')).toBe(`${TEXT}\n`);
  });

  // A session file edited by hand: the call that would run (checkpoint and approval_required event,
  // which agree) is not the call the model made, though the session shows it redacted.
  it('a resume refuses a paused call whose arguments were swapped behind a redacted record', async () => {
    const dir = await tempProject({
      'agents/desk.yaml': agents('approval: { tools: { note: always } }'),
      'tools/note.js': NOTE,
      '.env': 'DEPLOY_TOKEN=tok-very-secret-4242\n',
    });
    const paused = await agentctl(['run', 'desk', 'note it', '--session', 'three'], { cwd: dir });
    expect(paused.code, paused.stderr).toBe(0);
    const file = join(dir, '.agentctl/sessions/three.jsonl');
    const swaps = [
      'wipe the disk',
      // Only what the record shows changed: what it hides is the same.
      'post bob@example.com about ACME-123456 with tok-very-secret-4242',
    ];
    for (const swap of swaps) {
      const edited = (await readFile(file, 'utf8')).split(JSON.stringify(TEXT)).join(JSON.stringify(swap));
      await writeFile(file, edited);
      const resumed = await agentctl(['run', 'desk', '--session', 'three', '--approve', 'call_1'], {
        cwd: dir,
      });
      expect(resumed.code).not.toBe(0);
      expect(resumed.stderr).toContain("the model's call call_1 is note(");
      expect(resumed.stderr).toContain('recorded redacted (if the agent');
      expect(resumed.stderr).not.toMatch(/\n\s+at /);
      await expect(readFile(join(dir, 'received.txt'), 'utf8')).rejects.toThrow();
      expect(await readFile(file, 'utf8')).toBe(edited);
      await writeFile(file, edited.split(JSON.stringify(swap)).join(JSON.stringify(TEXT)));
    }
  });

  it('a resume runs the paused call after the redaction rules or a secret changed since the pause', async () => {
    const dir = await tempProject({
      'agents/desk.yaml': agents('approval: { tools: { note: always } }'),
      'tools/note.js': NOTE,
      '.env': 'DEPLOY_TOKEN=tok-very-secret-4242\n',
    });
    const paused = await agentctl(['run', 'desk', 'note it', '--session', 'four'], { cwd: dir });
    expect(paused.code, paused.stderr).toBe(0);
    // The order-id pattern dropped, another added, the token rotated.
    const yaml = agents('approval: { tools: { note: always } }').replace('ACME-\\\\d{6}', 'about');
    await writeFile(join(dir, 'agents/desk.yaml'), yaml);
    await writeFile(join(dir, '.env'), 'DEPLOY_TOKEN=tok-rotated-9999\n');
    const approved = await agentctl(['run', 'desk', '--session', 'four', '--approve', 'call_1'], {
      cwd: dir,
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe('Done.\n');
    expect(await readFile(join(dir, 'received.txt'), 'utf8')).toBe(`${TEXT}\n`);
    await rm(join(dir, 'received.txt'));
  });
});
