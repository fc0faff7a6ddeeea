import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, removeTempDirs } from '../support/cli.js';
import { probeProject, runMain, scriptedAgent, scriptedTurns, toolResults } from './probe-project.js';

// A small MCP server written with the SDK that misbehaves on purpose, started over stdio by the
// real `agentctl run`: what it does wrong is reported as the toolset's error or the call's result,
// never as an internal error of agentctl.

const SERVER = join(REPO, 'packages/mcp/test/fixtures/hostile.js');

afterAll(removeTempDirs);

function project(mode: string, calls: Array<{ name: string; arguments: unknown }>, more = '', tools = '') {
  return probeProject({
    'agents/main.yaml': `${scriptedAgent(`[{ toolset: hostile }${tools}]`, calls)}---
kind: toolset
name: hostile
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, ${mode}] }
timeout: 10s
${more}`,
  });
}

// The `names` mode lists tools with the given names.
const named = (names: string[]) => `names, ${JSON.stringify(JSON.stringify(names))}`;

describe.concurrent('a hostile MCP server', () => {
  it('a tools list that breaks the MCP schema is an error at the toolset, in one line, exit 1', async () => {
    const dir = await project('bad-list', [{ name: 'echo', arguments: { text: 'hi' } }]);
    const { code, stderr } = await runMain(dir);
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(
      'agents/main.yaml:17:6: error: MCP server of toolset "hostile" listed its tools in a form MCP does not allow: tools[1].inputSchema.required: ',
    );
    expect(stderr).not.toContain('"code": "invalid_type"');
  });

  it('a tool whose input schema is no JSON Schema fails that call; the other calls run; exit 0', async () => {
    const dir = await project('bad-schema', [
      { name: 'odd', arguments: { n: 1 } },
      { name: 'echo', arguments: { text: 'still here' } },
    ]);
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const results = toolResults(events);
    expect(results.find((r) => r.name === 'odd')).toMatchObject({ isError: true });
    expect(results.find((r) => r.name === 'odd')?.content).toMatch(
      /^Tool odd cannot be called: its parameters are not a valid JSON Schema \(schema is invalid: .*properties\/n\/type/,
    );
    expect(results.find((r) => r.name === 'echo')).toMatchObject({ content: 'echo {"text":"still here"}' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('a server that exits mid-call fails that call with its stderr, and is restarted for the next', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: hostile }]', [
        'tool_calls: [{ id: c, name: crash, arguments: {} }]',
        'tool_calls: [{ id: e, name: echo, arguments: { text: again } }, { id: h, name: hang, arguments: {} }]',
        'text: done',
      ])}---
kind: toolset
name: hostile
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, ok] }
timeout: 5s
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [crash, ...rest] = toolResults(events);
    expect(crash.content).toContain('stopped during the call');
    expect(crash.content).toContain('crash: going down');
    const byName = Object.fromEntries(rest.map((r) => [r.name, r]));
    expect(byName.echo.content).toMatch(/was restarted before this call[\s\S]*echo \{"text":"again"\}/);
    expect(byName.hang).toMatchObject({
      isError: true,
      content:
        'Tool hang failed: MCP server of toolset "hostile" did not answer the call of hang within 5000 ms (the toolset\'s timeout); the call was cancelled',
    });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('the toolset timeout counts a restart: a call after a slow restart still fails naming the server, not the loop', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: hostile }]', [
        'tool_calls: [{ id: c, name: crash, arguments: {} }]',
        'tool_calls: [{ id: h, name: hang, arguments: {} }]',
        'text: done',
      ])}---
kind: toolset
name: hostile
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, slow-start] }
timeout: 3s
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [, hang] = toolResults(events);
    // The restart takes 2 s of the 3: the client gives up 1 s later, before the loop's 4 s.
    expect(hang).toMatchObject({
      isError: true,
      content:
        'Tool hang failed: MCP server of toolset "hostile" did not answer the call of hang within 3000 ms (the toolset\'s timeout); the call was cancelled',
    });
  });

  it('an answer that breaks the MCP schema fails that call in one line, and the server keeps running', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: hostile }]', [
        'tool_calls: [{ id: b, name: bad-result, arguments: {} }]',
        'tool_calls: [{ id: e, name: echo, arguments: { text: after } }]',
        'text: done',
      ])}---
kind: toolset
name: hostile
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, ok] }
timeout: 10s
`,
    });
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [bad, echo] = toolResults(events);
    expect(bad).toMatchObject({
      isError: true,
      content:
        'Tool bad-result failed: MCP server of toolset "hostile" answered the call of bad-result in a form MCP does not allow: content[0].data: Invalid Base64 string',
    });
    // Not restarted: a restart would have put a note before the answer, and lost the server's state.
    expect(echo.content).toBe('echo {"text":"after"}');
  });

  it('an answer that is no JSON-RPC message fails its call with what is wrong, instead of waiting out the timeout', async () => {
    const dir = await project('ok', [
      { name: 'null-answer', arguments: {} },
      { name: 'echo', arguments: { text: 'after' } },
    ]);
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const byName = Object.fromEntries(toolResults(events).map((r) => [r.name, r]));
    expect(byName['null-answer']).toMatchObject({
      isError: true,
      content:
        'Tool null-answer failed: MCP server of toolset "hostile" answered the call of null-answer in a form MCP does not allow: result: Invalid input: expected object, received null',
    });
    expect(byName.echo).toMatchObject({ isError: false, content: 'echo {"text":"after"}' });
  });

  it('an answer larger than an MCP message may be says so, not that the server crashed', async () => {
    const dir = await project('ok', [{ name: 'huge', arguments: {} }]);
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [huge] = toolResults(events);
    expect(huge.isError).toBe(true);
    expect(huge.content).toContain(
      'MCP server of toolset "hostile" was stopped during the call: its answer was larger than 10 MB',
    );
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
  });

  it('an answer under the MCP limit is still cut to the toolset max_bytes, with a note', async () => {
    const dir = await project(
      'ok',
      [
        { name: 'big', arguments: {} },
        { name: 'big', arguments: {} },
      ],
      'max_bytes: 1000\n',
    );
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    for (const big of toolResults(events)) {
      expect(big.isError).toBe(false);
      expect(big.content).toBe(
        `${'b'.repeat(1000)}\n[truncated: the answer has ${3 * 2 ** 20} bytes; the first 1000 are shown (the toolset's max_bytes)]`,
      );
    }
  });

  it('cuts a 3 MB answer to 256 KiB by default', async () => {
    const dir = await project('ok', [{ name: 'big', arguments: {} }]);
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const [big] = toolResults(events);
    expect(big.content.startsWith('b'.repeat(256 * 1024))).toBe(true);
    expect(big.content.slice(256 * 1024)).toBe(
      `\n[truncated: the answer has ${3 * 2 ** 20} bytes; the first ${256 * 1024} are shown (the toolset's max_bytes)]`,
    );
  });

  it('lines on stdout that are no JSON-RPC are skipped; the call answers and the server keeps running', async () => {
    const dir = await project('ok', [
      { name: 'noisy', arguments: {} },
      { name: 'echo', arguments: { text: 'after' } },
    ]);
    const { code, stderr, events } = await runMain(dir);
    expect(code, stderr).toBe(0);
    const byName = Object.fromEntries(toolResults(events).map((r) => [r.name, r]));
    expect(byName.noisy).toMatchObject({ isError: false, content: 'noisy done' });
    expect(byName.echo).toMatchObject({ isError: false, content: 'echo {"text":"after"}' });
  });

  it('a tool the server adds mid-run (tools/list_changed) is not callable in that run', async () => {
    const dir = await probeProject({
      'agents/main.yaml': `${scriptedTurns('[{ toolset: hostile }]', [
        'tool_calls: [{ id: g, name: grow, arguments: {} }]',
        'tool_calls: [{ id: a, name: added, arguments: {} }]',
        'text: done',
      ])}---
kind: toolset
name: hostile
mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, ok] }
`,
    });
    const { code, stderr, events } = await runMain(dir, ['--approve-all']);
    expect(code, stderr).toBe(0);
    const [grow, added] = toolResults(events);
    expect(grow.content).toBe('grew');
    expect(added).toMatchObject({ isError: true });
    expect(added.content).toMatch(/^Unknown tool "added"\. Available tools: echo, .*grow/);
  });

  it('names no provider accepts are made safe; a server naming a tool twice is named in the error', async () => {
    const safe = await project(named(['read file', '../etc/passwd']), [
      { name: 'read_file', arguments: {} },
      { name: '___etc_passwd', arguments: {} },
    ]);
    const ran = await runMain(safe);
    expect(ran.code, ran.stderr).toBe(0);
    expect(toolResults(ran.events).map((r) => r.content)).toEqual(['read file {}', '../etc/passwd {}']);

    const twice = await project(named(['dup', 'dup']), [{ name: 'dup', arguments: {} }]);
    const dup = await runMain(twice);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain(
      'MCP server of toolset "hostile" lists two tools named "dup"; exclude it, or fix the server',
    );
  });

  it('a tool named like a tool the runtime or the agent already has is refused before anything runs', async () => {
    const handoff = await runMain(
      await project(named(['transfer_to_agent']), [{ name: 'echo', arguments: {} }]),
    );
    expect(handoff.code).toBe(1);
    expect(handoff.stderr).toContain('a tool may not be named `transfer_to_agent`');
    expect(handoff.stderr).toContain('(from toolset `hostile`)');
    const builtin = await runMain(
      await project(named(['think']), [{ name: 'think', arguments: {} }], '', ', { builtin: think }'),
    );
    expect(builtin.code).toBe(1);
    expect(builtin.stderr).toContain('gets two tools named `think`');
    expect(builtin.stderr).not.toContain('\n    at ');
  });

  it('a tool list paged without end fails at the toolset, naming the server, instead of hanging', async () => {
    const cases: Array<[string, string, string]> = [
      ['endless-list', '', 'listed more than 1000 tools; no model takes that many'],
      ['loop-list', '', 'sent the page cursor "1" twice while listing its tools'],
      ['slow-list', 'start_timeout: 1s\n', 'did not list its tools within 1000 ms'],
    ];
    for (const [mode, more, said] of cases) {
      const { code, stderr } = await runMain(await project(mode, [{ name: 'echo', arguments: {} }], more));
      expect(code, mode).toBe(1);
      expect(stderr).toMatch(
        /agents\/main\.yaml:\d+:\d+: error: MCP server of toolset "hostile" \(.*hostile\.js/,
      );
      expect(stderr).toContain(said);
    }
  });

  it('a tool whose schema nests deeper than a call stack is refused by name, and can be excluded', async () => {
    const deep = await runMain(await project('deep', [{ name: 'echo', arguments: { text: 'hi' } }]));
    expect(deep.code).toBe(1);
    expect(deep.stderr).toContain(
      'MCP server of toolset "hostile" lists the tool "odd" with an inputSchema nested more than 100 levels deep; exclude it',
    );
    expect(deep.stderr).not.toContain('Maximum call stack');
    const without = await runMain(
      await project('deep', [{ name: 'echo', arguments: { text: 'hi' } }], 'exclude: [odd]\n'),
    );
    expect(without.code, without.stderr).toBe(0);
    expect(toolResults(without.events)[0]).toMatchObject({ content: 'echo {"text":"hi"}' });
  });
});
