import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openaiText, openaiToolCalls } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(removeTempDirs);

// An agent with the current_time tool on an OpenAI model served at `url`.
function projectOn(url: string): Promise<string> {
  return tempProject({
    'agentctl.yaml': 'kind: project\n',
    'agents/a.yaml': [
      'kind: agent',
      'name: a',
      'model: local',
      'tools: [{ builtin: current_time }]',
      '---',
      'kind: model',
      'name: local',
      'provider: openai',
      'model: gpt-test',
      `base_url: ${url}`,
      'api_key: test-key',
      '',
    ].join('\n'),
  });
}

// A model that streams arguments which are not JSON (a cut stream, a confused model) must not get
// its tool run with `{}`: current_time takes no required argument, so a schema check alone passes.
describe('a tool call whose arguments are not a JSON object', () => {
  it('goes back to the model as invalid and the tool does not run', async () => {
    server = await startFakeServer([
      { sse: openaiToolCalls([{ id: 'call_cut', name: 'current_time', arguments: '{"timezone": ' }]) },
      { sse: openaiText('sorry, let me try again later') },
    ]);
    const dir = await projectOn(server.url);
    const run = await agentctl(['run', '-C', dir, 'a', 'what time is it?', '--json']);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const call = events.find((e) => e.type === 'tool_call');
    expect(call?.call).toEqual({
      id: 'call_cut',
      name: 'current_time',
      arguments: {},
      malformedArguments: '{"timezone": ',
    });
    const result = events.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({ callId: 'call_cut', isError: true });
    expect(result?.content).toContain('Invalid arguments for current_time: they must be a JSON object');
    expect(result?.content).not.toContain('utc');
    const told = (
      server.requests[1].body as { messages: Array<{ role: string; content: string }> }
    ).messages.at(-1);
    expect(told?.role).toBe('tool');
    expect(told?.content).toContain('they must be a JSON object, got "{\\"timezone\\": "');
    expect(events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'complete',
      output: 'sorry, let me try again later',
    });
  });

  it('is shown as the model sent it, not as {}', async () => {
    server = await startFakeServer([
      { sse: openaiToolCalls([{ id: 'call_cut', name: 'current_time', arguments: '{"timezone": ' }]) },
      { sse: openaiText('sorry') },
    ]);
    const run = await agentctl(['run', '-C', await projectOn(server.url), 'a', 'what time is it?']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('→ current_time({"timezone": )');
    expect(run.stderr).not.toContain('current_time({})');
  });
});
