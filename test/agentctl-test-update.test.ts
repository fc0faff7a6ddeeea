import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readCassette } from '../packages/config/src/index.js';
import { openaiText, openaiToolCalls } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

// `agentctl test --update` on the example of agents/recorded.yaml: a real OpenAI model with a
// cassette, here served by a loopback server speaking the OpenAI wire, with a fake key.
const KEY = 'sk-test-update-0a1b2c3d4e5f';
const CASSETTE = 'agents/cassettes/recorded.yaml';
const TEST = `kind: test
name: counts-words
agent: recorded
turns:
  - user: "How many words are in: the quick brown fox jumps"
    expect:
      tool_calls: [{ name: word_count, args: { text: the quick brown fox jumps } }]
      output: { contains: 5 words }
`;

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

async function project(): Promise<string> {
  const dir = await tempDir('agentctl-update-');
  for (const file of ['agentctl.yaml', 'agents/recorded.yaml', 'agents/tools/word-count.ts']) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await cp(join(REPO, file), join(dir, file));
  }
  await mkdir(join(dir, 'tests'));
  await writeFile(join(dir, 'tests/recorded.yaml'), TEST);
  return dir;
}

describe('agentctl test --update', () => {
  it('records the real model into its cassette with the key set; later runs replay it offline', async () => {
    const dir = await project();
    const noKey = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

    // No cassette yet and no key: the project does not validate (run would refuse the model), and says why.
    const before = await agentctl(['test'], { cwd: dir, env: noKey });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('error: cassette agents/cassettes/recorded.yaml does not exist');
    expect(before.stderr).toContain('nothing was run');

    // A live model without a cassette runs, and --update says it has nowhere to record.
    const live = await startFakeServer([sse(openaiText('Hello from a live model.'))]);
    servers.push(live);
    await writeFile(
      join(dir, 'agents/live.yaml'),
      `kind: model
name: live-mini
provider: openai
model: gpt-4.1-mini
base_url: \${LIVE_URL:-http://127.0.0.1:9/v1}
api_key: \${OPENAI_API_KEY:-}
---
kind: agent
name: live
model: live-mini
`,
    );
    await writeFile(
      join(dir, 'tests/live.yaml'),
      'kind: test\nname: live-answers\nagent: live\nturns:\n  - user: hi\n    expect: { output: { contains: Hello } }\n',
    );

    const server = await startFakeServer([
      sse(
        openaiToolCalls([
          { id: 'call_a', name: 'word_count', arguments: { text: 'the quick brown fox jumps' } },
        ]),
      ),
      sse(openaiText('There are 5 words in that text.')),
    ]);
    servers.push(server);
    const update = await agentctl(['test', '--update'], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url, LIVE_URL: live.url },
    });
    expect(update.stderr).toContain(`recorded 2 model call(s) to ${CASSETTE}`);
    expect(update.stderr).toContain(
      'model live-mini ran live and has no `cassette:` to record into; add one to replay it offline',
    );
    expect(update.stdout).toContain('2 test(s): 2 passed');
    expect(live.requests).toHaveLength(1);
    expect(update.code).toBe(0);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const text = await readFile(join(dir, CASSETTE), 'utf8');
    expect(text).not.toContain(KEY);
    const cassette = await readCassette(join(dir, CASSETTE));
    expect(cassette.interactions.map((i) => i.response.finishReason)).toEqual(['tool_calls', 'stop']);
    await server.close();

    // The server is gone and no key is set: the test replays the cassette and passes.
    const replay = await agentctl(['test', 'counts-words'], { cwd: dir, env: noKey });
    expect(replay.stdout).toContain('✓ counts-words');
    expect(replay.code).toBe(0);

    // --update without the key records nothing, says so, and leaves the cassette as it was.
    const keyless = await agentctl(['test', '--update', 'counts-words'], { cwd: dir, env: noKey });
    expect(keyless.code).toBe(0);
    expect(keyless.stderr).toContain(`model openai-mini has no API key: replayed ${CASSETTE}, not updated`);
    expect(await readFile(join(dir, CASSETTE), 'utf8')).toBe(text);

    // A provider that fails halfway through a re-recording: the calls stop short, so the cassette
    // keeps the recording that replays, and the command says why it did not write it.
    const flaky = await startFakeServer([
      sse(
        openaiToolCalls([
          { id: 'call_b', name: 'word_count', arguments: { text: 'the quick brown fox jumps' } },
        ]),
      ),
      { status: 400, json: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    ]);
    servers.push(flaky);
    const failed = await agentctl(['test', '--update', 'counts-words'], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: flaky.url },
    });
    expect(failed.code).toBe(1);
    expect(flaky.requests).toHaveLength(2);
    expect(failed.stderr).toContain(
      `${CASSETTE} not updated: test counts-words failed with PROVIDER_ERROR, so its recording is incomplete`,
    );
    expect(failed.stderr).not.toContain('recorded 1 model call(s)');
    expect(await readFile(join(dir, CASSETTE), 'utf8')).toBe(text);
  });

  it('--update refuses a cassette whose model failed in a step that `error:` expects: it could not replay that', async () => {
    const dir = await project(); // no cassette yet
    await writeFile(
      join(dir, 'tests/rejected.yaml'),
      'kind: test\nname: rejected\nagent: recorded\nturns:\n  - user: hi\n    expect: { error: PROVIDER_ERROR }\n',
    );
    const server = await startFakeServer([
      { status: 400, json: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    ]);
    servers.push(server);
    const result = await agentctl(['test', '--update', 'rejected'], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    });
    // The test passed live, but a cassette keeps answers only: offline, its step would not fail so.
    expect(result.stdout).toContain('✓ rejected');
    expect(result.stderr).toContain(
      `${CASSETTE} not updated: in test rejected, model openai-mini's call failed (the step's PROVIDER_ERROR, as its \`error:\` expects), and a cassette records answers only`,
    );
    expect(result.code).toBe(1);
    // It used to pass, silent, and write nothing: the next offline run found no cassette at all.
    expect(existsSync(join(dir, CASSETTE))).toBe(false);
  });

  it('--update of some tests keeps the calls the other tests recorded into the same cassette', async () => {
    const dir = await tempDir('agentctl-update-some-');
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: some\n');
    await mkdir(join(dir, 'agents'));
    await mkdir(join(dir, 'tests'));
    await writeFile(
      join(dir, 'agents/desk.yaml'),
      `kind: model
name: mini
provider: openai
model: gpt-4.1-mini
base_url: \${OPENAI_BASE_URL:-http://127.0.0.1:9/v1}
api_key: \${OPENAI_API_KEY:-}
cassette: ../cassettes/shared.yaml
---
kind: agent
name: desk
model: mini
instruction: Answer.
`,
    );
    const test = (name: string, user: string, answer: string) =>
      `kind: test\nname: ${name}\nagent: desk\nturns:\n  - user: ${user}\n    expect: { output: { contains: ${answer} } }\n`;
    await writeFile(join(dir, 'tests/first.yaml'), test('first', 'one', 'Alpha'));
    await writeFile(join(dir, 'tests/second.yaml'), test('second', 'two', 'Beta'));
    const cassette = join(dir, 'cassettes/shared.yaml');
    const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

    // Both tests recorded: requests arrive in parallel, so each answer says what it was asked.
    const server = await startFakeServer([]);
    servers.push(server);
    server.reply(sse(openaiText('Alpha or Beta')), sse(openaiText('Alpha or Beta')));
    const all = await agentctl(['test', '--update'], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    });
    expect(all.stdout, all.stderr).toContain('2 test(s): 2 passed');
    expect((await readCassette(cassette)).interactions).toHaveLength(2);

    // Only `first` again, with a new answer: `second` keeps its recorded call.
    server.reply(sse(openaiText('Alpha, again')));
    const some = await agentctl(['test', '--update', 'first'], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    });
    expect(some.code, some.stderr).toBe(0);
    expect(some.stderr).toContain(
      'recorded 1 model call(s) to cassettes/shared.yaml (kept 1 call(s) of the tests not run)',
    );
    const calls = (await readCassette(cassette)).interactions;
    expect(calls.map((c) => [c.request.messages[0]?.content, c.response.content])).toEqual([
      ['two', 'Alpha or Beta'],
      ['one', 'Alpha, again'],
    ]);
    const replay = await agentctl(['test'], { cwd: dir, env: offline });
    expect(replay.stdout, replay.stderr).toContain('2 test(s): 2 passed');
    expect(replay.code).toBe(0);

    // A cassette edited by hand into one that does not parse is not replaced by `first`'s call
    // alone, which would drop `second`'s: it stays as it is, named with its line, and exit 1.
    const edited = (await readFile(cassette, 'utf8')).replace('version: 1', 'version: [1');
    await writeFile(cassette, edited);
    server.reply(sse(openaiText('Alpha, once more')));
    const broken = await agentctl(['test', '--update', 'first'], {
      cwd: dir,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    });
    expect(broken.code, broken.stderr).toBe(1);
    expect(broken.stderr).toMatch(/cassettes\/shared\.yaml:\d+:\d+: .*not updated/);
    expect(broken.stderr).not.toContain('recorded 1 model call(s)');
    expect(await readFile(cassette, 'utf8')).toBe(edited);
  });
});
