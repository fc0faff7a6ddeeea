import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';
import { startServe, stopServers } from './support/serve.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

function projectOn(url: string): Promise<string> {
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/a.yaml': `kind: agent\nname: a\nmodel: short\n---\nkind: model\nname: short\nprovider: openai\nmodel: gpt-4.1-mini\nbase_url: ${url}\nmax_output_tokens: 5\n`,
  });
}

// A model that stops at its output limit (or is stopped by a content filter) answers as a whole
// answer does, only shorter: without a word, a user takes the half answer for the answer.
describe('an answer the model did not finish', () => {
  it('run says it was cut short and why; the message event and the session carry it', async () => {
    server = await startFakeServer([
      { sse: openaiText('The three steps are: first', { finish: 'length' }) },
      { sse: openaiText('The three steps are: first', { finish: 'length' }) },
      { sse: openaiText('I cannot', { finish: 'content_filter' }) },
    ]);
    const dir = await projectOn(server.url);
    const run = await agentctl(['run', 'a', 'list three steps'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The three steps are: first\n');
    expect(run.stderr).toContain(
      "! a's answer was cut short: the model reached its output limit (raise max_output_tokens for a longer answer)",
    );
    const json = await agentctl(['run', 'a', 'list three steps', '--json'], { cwd: dir });
    const answer = parseNdjson(json.stdout).find((e) => e.type === 'message' && e.author === 'a');
    expect(answer?.message).toMatchObject({ role: 'assistant', cutShort: 'length' });
    const filtered = await agentctl(['run', 'a', 'something'], { cwd: dir });
    expect(filtered.stderr).toContain("! a's answer was cut short: the provider's content filter stopped it");
  });

  it('a whole answer says nothing of the kind', async () => {
    server = await startFakeServer([{ sse: openaiText('All done.') }]);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: await projectOn(server.url) });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('cut short');
  });

  it('serve answers finish_reason length on /v1/chat/completions, streamed or not', async () => {
    server = await startFakeServer([
      { sse: openaiText('Half an', { finish: 'length' }) },
      { sse: openaiText('Half an', { finish: 'length' }) },
      { sse: openaiText('Whole.') },
    ]);
    const serve = await startServe(await projectOn(server.url));
    const ask = (stream: boolean) =>
      fetch(`${serve.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'a', messages: [{ role: 'user', content: 'go' }], stream }),
      });
    const whole = await (await ask(false)).json();
    expect(whole.choices[0]).toMatchObject({ message: { content: 'Half an' }, finish_reason: 'length' });
    const streamed = await (await ask(true)).text();
    const finishes = streamed
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.finish_reason)
      .filter(Boolean);
    expect(finishes).toEqual(['length']);
    const stopped = await (await ask(false)).json();
    expect(stopped.choices[0].finish_reason).toBe('stop');
  });
});
