import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, exampleProject, fixtureProject, parseNdjson, removeTempDirs } from './support/cli.js';

let examples: string;
beforeAll(async () => {
  examples = await exampleProject();
});
afterAll(removeTempDirs);

/** Index of the first event of a type, failing when there is none. */
function first(events: Array<{ type: string }>, type: string): number {
  const index = events.findIndex((e) => e.type === type);
  expect(index, `no ${type} event in ${events.map((e) => e.type).join(', ')}`).toBeGreaterThanOrEqual(0);
  return index;
}

describe.concurrent('agentctl run --json', () => {
  it('prints only NDJSON events on stdout, from run_start to run_end, in order', async () => {
    const { code, stdout, stderr } = await agentctl(['run', 'hello', 'good morning', '--json'], {
      cwd: examples,
    });
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const events = parseNdjson(stdout);
    expect(events[0].type).toBe('run_start');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete', output: 'good morning' });
    expect(events.filter((e) => e.type === 'run_start' || e.type === 'run_end')).toHaveLength(2);
    const order = ['run_start', 'message', 'agent_start', 'text_delta', 'agent_end', 'run_end'].map((type) =>
      first(events, type),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(events[first(events, 'message')]).toMatchObject({
      message: { role: 'user', content: 'good morning' },
    });
    const text = events
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.text)
      .join('');
    expect(text).toBe('good morning');
    // One invocation, every event with its own id.
    expect(new Set(events.map((e) => e.invocationId)).size).toBe(1);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('shows the tool calls and their results of toolsmith', async () => {
    const { code, stdout } = await agentctl(['run', 'toolsmith', 'use your tools', '--json'], {
      cwd: examples,
    });
    expect(code).toBe(0);
    const events = parseNdjson(stdout);
    expect(events[0].type).toBe('run_start');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    type ToolCallEvent = { call: { id: string; name: string; arguments: Record<string, unknown> } };
    type ToolResultEvent = { name: string; content: string; isError?: boolean };
    const calls = events.flatMap((e, at) =>
      e.type === 'tool_call' ? [{ at, ...(e as unknown as ToolCallEvent) }] : [],
    );
    expect(calls.map((c) => c.call.name).sort()).toEqual(['shout', 'word_count']);
    for (const { at, call } of calls) {
      const resultAt = events.findIndex((e) => e.type === 'tool_result' && e.callId === call.id);
      expect(resultAt, `no tool_result for ${call.name}`).toBeGreaterThan(at);
      const result = events[resultAt] as unknown as ToolResultEvent;
      expect(result.name).toBe(call.name);
      expect(result.isError ?? false).toBe(false);
      if (call.name === 'shout') {
        // The command tool really ran `echo` with the argument the model chose.
        expect(result.content.trim()).toBe(String(call.arguments.text));
      } else {
        const words = String(call.arguments.text).split(/\s+/).filter(Boolean).length;
        expect(JSON.parse(result.content)).toEqual({ words });
      }
    }
    expect(first(events, 'tool_result')).toBeLessThan(first(events, 'text_delta'));
  });
});

describe.concurrent('agentctl run, plain', () => {
  it('streams the answer on stdout and the usage on stderr', async () => {
    const { code, stdout, stderr } = await agentctl(['run', 'hello', 'hello there'], { cwd: examples });
    expect(code).toBe(0);
    expect(stdout).toBe('hello there\n');
    expect(stderr).toMatch(/^session [0-9a-f-]{36}$/m);
    expect(stderr).toMatch(/tokens in \d+ · out \d+ .*1 model call/);
  });

  it('reads the prompt from stdin', async () => {
    const { code, stdout } = await agentctl(['run', 'hello'], { cwd: examples, input: 'hi\n' });
    expect(code).toBe(0);
    expect(stdout).toBe('hi\n');
  });

  it('exits 2 on an empty stdin', async () => {
    const [empty, blank] = await Promise.all([
      agentctl(['run', 'hello'], { cwd: examples, input: '' }),
      agentctl(['run', 'hello'], { cwd: examples, input: '  \n\n' }),
    ]);
    for (const result of [empty, blank]) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('no prompt');
      // No session is made, so none is named.
      expect(result.stderr).not.toMatch(/session [0-9a-f-]{36}/);
    }
  });

  it('exits 2 on an unknown agent and lists the agents there are', async () => {
    const { code, stdout, stderr } = await agentctl(['run', 'nobody', 'hi'], { cwd: examples });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('no agent named "nobody"');
    expect(stderr).toContain('Agents in this project: greeter, hello, support, toolsmith');
  });

  it('runs an agent of a broken project when its own tree is fine, and exits 1 with file:line:col for one that is not', async () => {
    const broken = await fixtureProject('invalid');
    await writeFile(
      join(broken, 'agents', 'ok.yaml'),
      'kind: agent\nname: fine\nmodel: offline/echo\ninstruction: Hi.\n',
    );
    const fine = await agentctl(['run', 'fine', 'hi'], { cwd: broken });
    expect(fine.code).toBe(0);
    expect(fine.stdout.trim()).toBe('hi');
    // Errors elsewhere are still shown, as warnings naming why they do not block.
    expect(fine.stderr).toMatch(
      /^agents\/unresolved\.yaml:5:9: warning: .*no_such_tool.*not used by `fine`/m,
    );
    const { code, stdout, stderr } = await agentctl(['run', 'beta', 'hi'], { cwd: broken });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^agents\/unresolved\.yaml:5:9: error: .*no_such_tool/m);
    expect(stderr).toMatch(/^agents\/unknown-key\.yaml:5:1: warning: .*colour/m);
    expect(stderr).toContain('nothing was run');
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain('internal error');
  });
});
