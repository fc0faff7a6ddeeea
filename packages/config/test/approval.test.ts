import type { AgentResult, AnyTool, LlmAgent, Message } from '@agentctl/core';
import { BUILTIN_TOOLS } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { compileProject, createRegistry, formatDiagnostic, loadProject } from '../src/index.js';
import { project } from './helpers.js';

// Three tools that write what they were called with: a command tool (asks by default), a
// command tool that says it need not ask, and a module tool (never asks by default).
const TOOLS = `kind: tool
name: shell
parameters: { type: object, properties: { cmd: { type: string } } }
command: { argv: [echo, "ran {{ args.cmd }}"] }
---
kind: tool
name: quiet
command: { argv: [echo, quiet] }
needs_approval: false
---
kind: tool
name: fetch
parameters: { type: object, properties: { path: { type: string } } }
http: { url: "http://127.0.0.1:9/{{ args.path }}" }
`;

/** An agent on a script calling `calls` in one turn, then answering `done`. */
function scripted(calls: Array<[string, Record<string, unknown>]>, extra = ''): string {
  const toolCalls = calls.map(([name, args], i) => ({ name, arguments: args, id: `c${i}` }));
  return `kind: agent
name: a
model: m
tools: [shell, quiet, fetch]
${extra}
---
kind: model
name: m
provider: offline
model: script
script:
  - tool_calls: ${JSON.stringify(toolCalls)}
  - text: done
`;
}

async function compile(files: Record<string, string>) {
  const root = await project(files);
  const loaded = await loadProject({ project: root, env: {} });
  const registry = createRegistry();
  const given: Record<string, unknown>[] = [];
  for (const [name, factory] of Object.entries(BUILTIN_TOOLS)) {
    // Re-registered with the built-in's descriptor: its options schema still types the options.
    const meta = registry.describe('builtinTool', name);
    registry.registerBuiltinTool(
      name,
      (options, ctx) => {
        given.push(options);
        return (factory as (o: unknown) => AnyTool)({ root: ctx.root, ...options });
      },
      meta,
    );
  }
  const compiled = await compileProject(loaded, { env: {}, registry });
  return { root, given, ...compiled };
}

async function run(files: Record<string, string>, messages?: Message[]): Promise<AgentResult> {
  const { runtime, diagnostics } = await compile(files);
  expect(diagnostics.map(formatDiagnostic)).toEqual([]);
  try {
    return await (runtime!.agents.get('a') as LlmAgent).run('go', { messages }).result;
  } finally {
    await runtime!.dispose();
  }
}

const pendingNames = (result: AgentResult) => (result.pending ?? []).map((p) => p.call.name).sort();
const ran = (result: AgentResult) =>
  result.toolCalls
    .filter((c) => !c.isError)
    .map((c) => c.name)
    .sort();

describe('approval from YAML', () => {
  it('command and http tools ask by default; needs_approval: false and module tools do not', async () => {
    const result = await run({
      'agents/t.yaml': TOOLS,
      'agents/a.yaml': scripted([
        ['shell', { cmd: 'ls' }],
        ['quiet', {}],
        ['fetch', { path: 'x' }],
      ]),
    });
    expect(result.status).toBe('paused');
    expect(pendingNames(result)).toEqual(['fetch', 'shell']);
    expect(ran(result)).toEqual(['quiet']);
  });

  it('evaluates deny, then allow, then the mode: deny wins over a matching allow', async () => {
    const approval = `approval:
  tools: { quiet: always }
  allow: [{ tool: shell, args: { cmd: "ls*" } }, fetch]
  deny: [{ tool: "*", args: { path: "/^secret/" } }]`;
    const result = await run({
      'agents/t.yaml': TOOLS,
      'agents/a.yaml': scripted(
        [
          ['shell', { cmd: 'ls -l' }],
          ['shell', { cmd: 'rm -rf /' }],
          ['fetch', { path: 'secret/keys' }],
          ['quiet', {}],
        ],
        approval,
      ),
    });
    // shell ls: allowed and run; shell rm: asks; fetch secret: allowed by name, denied by path.
    expect(result.toolCalls.find((c) => c.id === 'c0')).toMatchObject({
      isError: false,
      result: 'ran ls -l',
    });
    expect(pendingNames(result)).toEqual(['quiet', 'shell']);
    const refused = result.toolCalls.find((c) => c.id === 'c2');
    expect(refused).toMatchObject({ isError: true });
    expect(String(refused?.result)).toContain('denied by the approval policy');
  });

  it('approval.tools overrides needs_approval, with patterns and exact names', async () => {
    const result = await run({
      'agents/t.yaml': TOOLS,
      'agents/a.yaml': scripted(
        [
          ['shell', { cmd: 'a' }],
          ['quiet', {}],
          ['fetch', { path: 'y' }],
        ],
        'approval: { tools: { "*": never, quiet: always } }',
      ),
    });
    expect(pendingNames(result)).toEqual(['quiet']);
    expect(ran(result)).toEqual(['shell']);
    // fetch was not asked about (approval said never): it ran, and failed to connect to port 9.
    const fetch = result.toolCalls.find((c) => c.id === 'c2');
    expect(fetch).toMatchObject({ isError: true });
    expect(String(fetch?.result)).toMatch(/^Tool fetch failed/);
  });

  it('once-per-session asks until the conversation holds a result of the tool', async () => {
    const files = {
      'agents/t.yaml': TOOLS,
      'agents/a.yaml': scripted(
        [['shell', { cmd: 'x' }]],
        'approval: { tools: { shell: once-per-session } }',
      ),
    };
    expect((await run(files)).status).toBe('paused');
    const earlier: Message[] = [
      { role: 'user', content: 'before' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'old', name: 'shell', arguments: { cmd: 'y' } }] },
      { role: 'tool', toolCallId: 'old', name: 'shell', content: 'ran y' },
      { role: 'assistant', content: 'ok' },
    ];
    const second = await run(files, earlier);
    expect(second.status).toBe('complete');
    expect(second.toolCalls.find((c) => c.id === 'c0')?.result).toBe('ran x');
  });

  it('reports approval.tools naming a tool the agent does not have, and a bad rule regex', async () => {
    const unknown = await compile({
      'agents/t.yaml': TOOLS,
      'agents/a.yaml': scripted([], 'approval: { tools: { shel: always } }'),
    });
    expect(unknown.diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /agents\/a\.yaml:5:\d+: error: approval\.tools names `shel`, which is not a tool/,
      ),
    ]);
    const regex = await compile({
      'agents/t.yaml': TOOLS,
      'agents/a.yaml': scripted([], 'approval: { deny: [{ tool: shell, args: { cmd: "/(/" } }] }'),
    });
    expect(regex.diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(/agents\/a\.yaml:5:\d+: error: .*invalid regular expression/),
    ]);
  });
});

describe('built-in tool options', () => {
  const agent = (tools: string) => `kind: agent\nname: a\nmodel: offline/echo\ntools:\n${tools}`;

  it('passes inline and `options:` keys camelCased, root resolved in the project, durations in ms', async () => {
    const { runtime, diagnostics, given, root } = await compile({
      'agents/a.yaml': agent(
        '  - { builtin: http_get, allowed_hosts: [127.0.0.1], timeout: 2s, options: { max_bytes: 10 } }\n  - { builtin: read_file, root: ../docs }\n',
      ),
      'docs/x.txt': 'hello',
    });
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(given).toEqual([
      { allowedHosts: ['127.0.0.1'], timeout: 2000, maxBytes: 10 },
      { root: `${root}/docs` },
    ]);
    const read = (runtime!.agents.get('a') as LlmAgent).tools.get('read_file')!;
    const signal = new AbortController().signal;
    expect(await read.execute({ path: 'x.txt' }, { callId: 'c', signal } as never)).toBe('hello');
    await runtime!.dispose();
  });

  it('refuses an inline option the built-in does not have, and a root outside the project', async () => {
    const { diagnostics } = await compile({
      'agents/a.yaml': agent(
        '  - { builtin: current_time, allowed_hosts: [x] }\n  - { builtin: list_dir, root: ../../.. }\n',
      ),
    });
    const text = diagnostics.map(formatDiagnostic).join('\n');
    expect(text).toContain(
      'error: built-in current_time: unknown option `allowed_hosts` (known: timezone) [plugin-options]',
    );
    expect(text).toMatch(/agents\/a\.yaml:6:\d+: error: .*(outside|escape|leaves).*\[file-path\]/);
  });
});

describe('approval of toolset tools', () => {
  // A stand-in for an MCP toolset kind: every tool of the toolset echoes, and needs approval
  // exactly when its toolset's mode is not `never` (what @agentctl/mcp does).
  async function compileWithToolset(toolset: string, agentExtra: string) {
    const root = await project({
      'agents/a.yaml': `kind: agent\nname: a\nmodel: m\ntools: [{ toolset: box }]\n${agentExtra}\n---\nkind: model\nname: m\nprovider: offline\nmodel: script\nscript:\n  - tool_calls: [{ name: p_read, arguments: {}, id: r }, { name: p_write, arguments: {}, id: w }]\n  - text: done\n`,
      'agents/box.yaml': `kind: toolset\nname: box\nmcp: { command: none }\nprefix: p_\n${toolset}\n`,
    });
    const registry = createRegistry().registerToolset('mcp', async (spec) => ({
      tools: ['read', 'write'].map((name) => ({
        name: `p_${name}`,
        description: name,
        parameters: { type: 'object', properties: {} },
        needsApproval: spec.approval !== undefined && spec.approval !== 'never',
        execute: () => `${name} ok`,
      })),
      dispose: async () => undefined,
    }));
    const loaded = await loadProject({ project: root, env: {} });
    const { runtime, diagnostics } = await compileProject(loaded, { env: {}, registry });
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
    try {
      return await (runtime!.agents.get('a') as LlmAgent).run('go').result;
    } finally {
      await runtime!.dispose();
    }
  }

  it('takes per-tool modes by the name the model sees or the server name, patterns last', async () => {
    const result = await compileWithToolset('approval: { "*": never, write: always }', '');
    expect(pendingNames(result)).toEqual(['p_write']);
    expect(ran(result)).toEqual(['p_read']);
  });

  it("lets the agent's approval.tools override the toolset's mode", async () => {
    const result = await compileWithToolset(
      'approval: always',
      'approval: { tools: { p_read: never, "p_w*": once-per-session } }',
    );
    expect(pendingNames(result)).toEqual(['p_write']);
    expect(ran(result)).toEqual(['p_read']);
  });

  it('applies a single once-per-session mode to every tool of the toolset', async () => {
    const result = await compileWithToolset('approval: once-per-session', '');
    expect(pendingNames(result)).toEqual(['p_read', 'p_write']);
  });
});
