import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(removeTempDirs);

const SECRET = 'tok-very-secret-4242';
// Streamed in pieces of 4 characters: the secret arrives split across five chunks.
const ANSWER = `Your token is ${SECRET}, keep it safe.`;
const HIDDEN = 'Your token is ***, keep it safe.';

function projectOn(url: string): Promise<string> {
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/a.yaml': `kind: agent\nname: a\nmodel: keyed\n---\nkind: model\nname: keyed\nprovider: openai\nmodel: gpt-4.1-mini\nbase_url: ${url}\napi_key: \${DEPLOY_TOKEN}\n`,
    '.env': `DEPLOY_TOKEN=${SECRET}\n`,
  });
}

// A secret the model was given (typed by the user, or in an instruction) and says back.
describe("a project secret in the model's answer", () => {
  it('is hidden in the streamed text, the message, run_end, the output and the session', async () => {
    server = await startFakeServer([{ sse: openaiText(ANSWER) }, { sse: openaiText(ANSWER) }]);
    const dir = await projectOn(server.url);
    const run = await agentctl(['run', 'a', 'what is my token?', '--session', 's'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${HIDDEN}\n`);
    const json = await agentctl(['run', 'a', 'again?', '--session', 's', '--json'], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    const events = parseNdjson(json.stdout);
    const deltas = events.filter((e) => e.type === 'text_delta').map((e) => e.text as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(HIDDEN);
    // No piece of it either: a chunk that could begin the secret waits for the next.
    for (const delta of deltas) expect(HIDDEN).toContain(delta);
    expect(events.find((e) => e.type === 'message' && e.author === 'a')).toMatchObject({
      message: { content: HIDDEN },
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', output: HIDDEN });
    const session = await readFile(join(dir, '.agentctl/sessions/s.jsonl'), 'utf8');
    expect(session).toContain(HIDDEN);
    for (const leak of [SECRET, 'secret-4242', 'tok-very-']) {
      expect(json.stdout).not.toContain(leak);
      expect(session).not.toContain(leak);
    }
    // The model's next turn is sent its earlier answer as recorded.
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain(HIDDEN);
  });
});

// Values in a command line or an environment are hidden only when they are credentials: a log
// level or a folder hidden would turn every answer that says the word into `***`.
describe('a `${VAR}` value that is no credential', () => {
  it('stays readable in the answer, while a credential beside it is hidden', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      '.env': 'GREP_MODE=debug\nNOTES_DIR=notes\nLIST_PASS=hunter22\nOPAQUE=8f3a9c2e71b4d5f6a0b1\n',
      'agents/a.yaml': [
        'kind: tool',
        'name: lister',
        'description: Lists notes',
        'command:',
        '  argv: [ls, "${NOTES_DIR}", "--${GREP_MODE}", --password, "${LIST_PASS}", "${OPAQUE}"]',
        '---',
        'kind: agent',
        'name: a',
        'model: offline/echo',
        'tools: [lister]',
        '',
      ].join('\n'),
    });
    const run = await agentctl(
      ['run', 'a', 'debug the notes, not hunter22 or 8f3a9c2e71b4d5f6a0b1', '--session', 's', '--json'],
      { cwd: dir },
    );
    expect(run.code, run.stderr).toBe(0);
    const events = parseNdjson(run.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', output: 'debug the notes, not *** or ***' });
    const session = await readFile(join(dir, '.agentctl/sessions/s.jsonl'), 'utf8');
    // The prompt is kept as typed; the answer is stored as shown.
    expect(session).toContain('"content":"debug the notes, not *** or ***"');
  });
});
