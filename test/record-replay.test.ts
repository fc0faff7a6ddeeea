import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readCassette } from '../packages/config/src/index.js';
import { openaiText, openaiToolCalls } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, REPO, removeTempDirs, tempDir, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

// The example of agents/recorded.yaml: a real OpenAI model that replays its cassette with no key.
const PROMPT = 'How many words are in: the quick brown fox jumps';
const ANSWER = 'There are 5 words in that text.';
const KEY = 'sk-test-record-9f8e7d6c5b4a';
const EXAMPLE = ['agentctl.yaml', 'agents/recorded.yaml', 'agents/tools/word-count.ts'];
const CASSETTE = 'agents/cassettes/recorded.yaml';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

async function project(files: readonly string[]): Promise<string> {
  const dir = await tempDir('agentctl-record-');
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await cp(join(REPO, file), join(dir, file));
  }
  return dir;
}

// The live conversation: the model calls word_count, reads the result, answers.
async function openaiServer(): Promise<FakeServer> {
  const server = await startFakeServer([
    sse(
      openaiToolCalls([
        { id: 'call_live_1', name: 'word_count', arguments: { text: 'the quick brown fox jumps' } },
      ]),
    ),
    sse(openaiText(ANSWER, { usage: { prompt_tokens: 120, completion_tokens: 9, cached_tokens: 64 } })),
  ]);
  servers.push(server);
  return server;
}

// Event types, streamed text and final output of a --json run, without ids and times. A replay
// streams the recorded text in its own pieces, so a run of text_delta events counts as one.
function shape(stdout: string) {
  const events = parseNdjson(stdout);
  const types = events.map((e) => e.type).filter((t, i, all) => t !== 'text_delta' || all[i - 1] !== t);
  const text = events
    .filter((e) => e.type === 'text_delta')
    .map((e) => (e as { text?: string }).text)
    .join('');
  const end = events.find((e) => e.type === 'run_end') as { output?: string } | undefined;
  return { types, text, output: end?.output };
}

describe('agentctl run --record where no cassette can be written', () => {
  it('is a usage error naming the flag before the run, so no call is made and then lost', async () => {
    const dir = await tempDir('agentctl-record-');
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(join(dir, 'agents/a.yaml'), 'kind: agent\nname: a\nmodel: offline/echo\n');
    await writeFile(join(dir, 'taken'), 'a file, not a folder\n');
    const under = await agentctl(['run', 'a', 'hi', '--record', 'taken/run.yaml'], { cwd: dir });
    expect(under.stderr).toBe(`agentctl: --record taken/run.yaml: ${join(dir, 'taken')} is not a folder\n`);
    expect(under.stdout).toBe('');
    expect(under.code).toBe(2);
    const folder = await agentctl(['run', 'a', 'hi', '--record', 'agents'], { cwd: dir });
    expect(folder.stderr).toBe(`agentctl: --record agents: ${join(dir, 'agents')} is a folder\n`);
    expect(folder.code).toBe(2);
    expect(existsSync(join(dir, '.agentctl/sessions'))).toBe(false);
  });
});

describe('agentctl run --record, then replay offline', () => {
  it('records a run on the OpenAI wire without the key, replays it offline, and fails with a diff on drift', async () => {
    const dir = await project(EXAMPLE);
    await writeFile(
      join(dir, 'agents/replayed.yaml'),
      'kind: model\nname: replayed\nprovider: offline\nmodel: replay\ncassette: ./cassettes/recorded.yaml\n',
    );
    const noKey = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

    // Before any recording there is nothing to fall back to: a diagnostic at the cassette field.
    const missing = await agentctl(['run', 'recorded', PROMPT], { cwd: dir, env: noKey });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /agents\/recorded\.yaml:14:11: error: cassette agents\/cassettes\/recorded\.yaml does not exist/,
    );

    const server = await openaiServer();
    const live = await agentctl(['run', 'recorded', PROMPT, '--json', '--record', CASSETTE], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    });
    expect(live.stderr).toContain(`recorded 2 model call(s) to ${join(dir, CASSETTE)}`);
    // agentctl.yaml excludes agents/cassettes/**, so nothing to warn about.
    expect(live.stderr).not.toContain('include globs match');
    expect(live.code).toBe(0);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const text = await readFile(join(dir, CASSETTE), 'utf8');
    expect(text).not.toContain(KEY);
    expect(text.toLowerCase()).not.toContain('bearer');
    expect(text).not.toContain('127.0.0.1');
    const cassette = await readCassette(join(dir, CASSETTE));
    expect(cassette.interactions.map((i) => [i.provider, i.request.model, i.response.finishReason])).toEqual([
      ['openai', 'gpt-4.1-mini', 'tool_calls'],
      ['openai', 'gpt-4.1-mini', 'stop'],
    ]);
    // The tool call id of the live run is normalised in the requests, kept in the response.
    expect(cassette.interactions[1].request.messages.map((m) => m.toolCallId ?? m.toolCalls?.[0].id)).toEqual(
      [undefined, 'call_1', 'call_1'],
    );
    expect(shape(live.stdout).output).toBe(ANSWER);
    await server.close();

    // No key and the server gone: the model falls back to its cassette, same events, same answer.
    const replay = await agentctl(['run', 'recorded', PROMPT, '--json'], { cwd: dir, env: noKey });
    expect(replay.code).toBe(0);
    expect(replay.stderr).toContain('replaying its cassette agents/cassettes/recorded.yaml');
    expect(shape(replay.stdout)).toEqual(shape(live.stdout));

    // offline/replay by name plays the same cassette, whatever model id the agent asks for.
    const named = await agentctl(['run', 'recorded', PROMPT, '--model', 'replayed'], {
      cwd: dir,
      env: noKey,
    });
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(ANSWER);

    // Recording where the project would load the cassette as a document says how to avoid it.
    const inside = await agentctl(['run', 'recorded', PROMPT, '--record', 'agents/again.yaml'], {
      cwd: dir,
      env: noKey,
    });
    expect(inside.code).toBe(0);
    expect(inside.stderr).toContain(
      `note: the project's include globs match ${join(dir, 'agents/again.yaml')}; add its folder to \`exclude\``,
    );
    await rm(join(dir, 'agents/again.yaml'));

    // The instruction drifts from the recording: exit 1 with a diff naming the field.
    const yaml = join(dir, 'agents/recorded.yaml');
    const source = await readFile(yaml, 'utf8');
    await writeFile(yaml, source.replace('in one short sentence', 'in one long paragraph'));
    const drift = await agentctl(['run', 'recorded', PROMPT], { cwd: dir, env: noKey });
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('does not match recorded interaction #1');
    expect(drift.stderr).toMatch(
      /system: expected ".*in one short sentence\.", got ".*in one long paragraph\."/,
    );
    expect(drift.stderr).not.toMatch(/\n\s+at /);
  });

  it('a cassette that is not one is reported at its own line and column', async () => {
    const dir = await project(EXAMPLE);
    await mkdir(join(dir, 'agents/cassettes'));
    await writeFile(join(dir, CASSETTE), 'version: 1\ninteractions:\n  - request: { model: m }\n');
    const result = await agentctl(['run', 'recorded', PROMPT], {
      cwd: dir,
      env: { OPENAI_API_KEY: undefined },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'agents/recorded.yaml:14:11: error: agents/cassettes/recorded.yaml:3:14: not a cassette: request.messages must be a list [offline-file]',
    );
    await writeFile(join(dir, CASSETTE), 'version: 1\ninteractions: [\n');
    const broken = await agentctl(['run', 'recorded', PROMPT], {
      cwd: dir,
      env: { OPENAI_API_KEY: undefined },
    });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/agents\/cassettes\/recorded\.yaml:\d+:\d+: not valid YAML/);
  });

  it('the example in agents/ replays its committed cassette with no key set', async () => {
    const dir = await project([...EXAMPLE, CASSETTE]);
    const result = await agentctl(['run', 'recorded', PROMPT], {
      cwd: dir,
      env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(result.stderr).toContain('word_count');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(ANSWER);
  });

  it('a cassette recorded into the included folders is named as one, with the exclude to add', async () => {
    // As `init` writes a project: every YAML file under agents/ is read, none excluded.
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: fresh\ninclude: [agents/**/*.yaml]\n',
      'agents/echo.yaml': 'kind: agent\nname: echo\nmodel: offline/echo\n',
    });
    const recorded = await agentctl(['run', 'echo', 'hello', '--record', 'agents/recorded/run.yaml'], {
      cwd: dir,
    });
    expect(recorded.code, recorded.stderr).toBe(0);
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(
      'agents/recorded/run.yaml:3:1: error: this file is a cassette (recorded model calls), not a document of the project: add `exclude: [agents/recorded/**]` to agentctl.yaml',
    );
  });
});
