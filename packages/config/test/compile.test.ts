// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} interpolation under test.
import { realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type AgentEvent, Runner } from '@agentctl/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compileProject, createRegistry, formatDiagnostic, loadProject } from '../src/index.js';
import { project } from './helpers.js';

let server: Server;
let base: string;
const seen: Array<{ url: string; headers: Record<string, unknown>; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/big')) {
        res.end('x'.repeat(5000));
      } else if (req.url?.startsWith('/slow')) {
        setTimeout(() => res.end('late'), 3000);
      } else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ path: req.url, method: req.method }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function compile(files: Record<string, string>, env: Record<string, string> = {}) {
  const root = await project(files);
  const loaded = await loadProject({ project: root, env });
  const compiled = await compileProject(loaded, { env, registry: createRegistry() });
  return { root, loaded, ...compiled };
}

async function callTool(
  files: Record<string, string>,
  toolName: string,
  args: Record<string, unknown>,
  env: Record<string, string> = {},
) {
  const { runtime, diagnostics } = await compile(files, env);
  expect(diagnostics.map(formatDiagnostic)).toEqual([]);
  const agent = runtime!.agents.get('a')!;
  const tool = agent.tools.get(toolName)!;
  try {
    return await tool.execute(args, {
      callId: 'c1',
      signal: AbortSignal.timeout(2000),
      messages: [],
      endInvocation() {},
    });
  } finally {
    await runtime!.dispose();
  }
}

const agentWith = (tool: string) => `kind: agent\nname: a\nmodel: offline/auto\ntools: [${tool}]\n`;

describe('compile: http tools', () => {
  const httpTool =
    (extra = '') =>
    () =>
      `kind: tool\nname: fetch_it\nparameters: { type: object, properties: { q: { type: string } } }\nhttp:\n  url: "${base}/search?q={{ args.q }}"\n  headers: { authorization: "Bearer \${TOKEN}" }\n${extra}`;

  it('sends the request with arguments and env filled in, and parses JSON', async () => {
    const result = await callTool(
      { 'agents/a.yaml': agentWith('fetch_it'), 'agents/t.yaml': httpTool()() },
      'fetch_it',
      { q: 'a b&c' },
      { TOKEN: 'sekrit-token' },
    );
    expect(result).toEqual({ status: 200, body: { path: '/search?q=a%20b%26c', method: 'GET' } });
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer sekrit-token');
  });

  it('refuses a host that is not allowed', async () => {
    const files = {
      'agents/a.yaml': agentWith('fetch_it'),
      'agents/t.yaml': `kind: tool\nname: fetch_it\nhttp:\n  url: "http://{{ args.host }}/x"\n  allowed_hosts: [example.com]\n`,
    };
    await expect(callTool(files, 'fetch_it', { host: '127.0.0.1' })).rejects.toThrow(/not in allowed_hosts/);
  });

  it('stops reading past max_response_bytes', async () => {
    const files = {
      'agents/a.yaml': agentWith('fetch_it'),
      'agents/t.yaml': `kind: tool\nname: fetch_it\nhttp:\n  url: "${base}/big"\n  max_response_bytes: 100\n`,
    };
    await expect(callTool(files, 'fetch_it', {})).rejects.toThrow(/max_response_bytes/);
  });

  it('aborts a slow request through the call signal', async () => {
    const files = {
      'agents/a.yaml': agentWith('fetch_it'),
      'agents/t.yaml': `kind: tool\nname: fetch_it\nhttp:\n  url: "${base}/slow"\n`,
    };
    const { runtime } = await compile(files);
    const tool = runtime!.agents.get('a')!.tools.get('fetch_it')!;
    await expect(
      tool.execute({}, { callId: 'c', signal: AbortSignal.timeout(100), messages: [], endInvocation() {} }),
    ).rejects.toThrow();
    await runtime!.dispose();
  });
});

describe('compile: command tools', () => {
  it('runs argv without a shell, with templates per element', async () => {
    const files = {
      'agents/a.yaml': agentWith('say'),
      'agents/t.yaml': 'kind: tool\nname: say\ncommand:\n  argv: [echo, "{{ args.text }}"]\n',
    };
    expect(await callTool(files, 'say', { text: '$(whoami); `id` | cat' })).toBe('$(whoami); `id` | cat');
  });

  it('passes only PATH and the declared variables, and JSON on stdin', async () => {
    const script =
      'process.stdin.on("data", (d) => console.log(JSON.stringify({ args: JSON.parse(d), keys: Object.keys(process.env).sort() })))';
    const files = {
      'agents/a.yaml': agentWith('env_probe'),
      'agents/t.yaml': `kind: tool\nname: env_probe\ncommand:\n  argv: [node, -e, '${script}']\n  stdin_json: true\n  env: [ALLOWED]\n`,
    };
    const out = await callTool(
      files,
      'env_probe',
      { n: 1 },
      { PATH: process.env.PATH ?? '', ALLOWED: 'yes', OPENAI_API_KEY: 'sk-do-not-leak' },
    );
    const parsed = JSON.parse(out as string) as { args: unknown; keys: string[] };
    expect(parsed.args).toEqual({ n: 1 });
    expect(parsed.keys.filter((k) => !k.startsWith('__CF'))).toEqual(['ALLOWED', 'PATH']);
  });

  it('runs a command in the folder of its file by default, or in cwd relative to that file', async () => {
    const files = {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntools: [here, there]\n',
      'agents/tools/t.yaml':
        'kind: tool\nname: here\ncommand: { argv: [pwd] }\nneeds_approval: false\n---\nkind: tool\nname: there\ncommand: { argv: [pwd], cwd: ../data }\nneeds_approval: false\n',
      'agents/data/.keep': '',
    };
    const { root, runtime, diagnostics } = await compile(files, { PATH: process.env.PATH ?? '' });
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
    try {
      const tools = runtime!.agents.get('a')!.tools;
      const ctx = { callId: 'c', signal: AbortSignal.timeout(10_000), messages: [], endInvocation() {} };
      const where = async (name: string) => String(await tools.get(name)!.execute({}, ctx)).trim();
      expect(await where('here')).toBe(realpathSync(join(root, 'agents/tools')));
      expect(await where('there')).toBe(realpathSync(join(root, 'agents/data')));
    } finally {
      await runtime?.dispose();
    }
  });

  it('kills a program past max_output_bytes', async () => {
    const files = {
      'agents/a.yaml': agentWith('flood'),
      'agents/t.yaml': `kind: tool\nname: flood\ncommand:\n  argv: [node, -e, 'setInterval(() => process.stdout.write("x".repeat(1000)), 1)']\n  max_output_bytes: 2000\n`,
    };
    await expect(callTool(files, 'flood', {}, { PATH: process.env.PATH ?? '' })).rejects.toThrow(
      /max_output_bytes/,
    );
  });

  it('kills a program when the call times out', async () => {
    const files = {
      'agents/a.yaml': agentWith('sleepy'),
      'agents/t.yaml': `kind: tool\nname: sleepy\ncommand:\n  argv: [node, -e, 'setTimeout(() => {}, 60000)']\n`,
    };
    const { runtime } = await compile(files, { PATH: process.env.PATH ?? '' });
    const tool = runtime!.agents.get('a')!.tools.get('sleepy')!;
    const started = Date.now();
    await expect(
      tool.execute({}, { callId: 'c', signal: AbortSignal.timeout(200), messages: [], endInvocation() {} }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(30_000);
    await runtime!.dispose();
  });

  it('reports a failing program with its exit code', async () => {
    const files = {
      'agents/a.yaml': agentWith('fail'),
      'agents/t.yaml': `kind: tool\nname: fail\ncommand:\n  argv: [node, -e, 'console.error("boom"); process.exit(3)']\n`,
    };
    await expect(callTool(files, 'fail', {}, { PATH: process.env.PATH ?? '' })).rejects.toThrow(
      /exited with 3: boom/,
    );
  });
});

describe('compile: module tools, models, registry', () => {
  const tool =
    "export const add = { name: 'add', description: 'adds', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, execute: ({ a, b }: { a: number; b: number }) => a + b };\n";

  it('loads TypeScript module tools inline and as kind: tool', async () => {
    const files = {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ntools:\n  - module: ./tools/add.ts\n  - plus\n---\nkind: tool\nname: plus\ndescription: adds too\nmodule: { path: ./tools/add.ts, export: add }\n',
      'agents/tools/add.ts': tool,
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    const agent = runtime!.agents.get('a')!;
    expect([...agent.tools.keys()]).toEqual(['add', 'plus']);
    expect(
      await agent.tools
        .get('plus')!
        .execute(
          { a: 2, b: 3 },
          { callId: 'c', signal: new AbortController().signal, messages: [], endInvocation() {} },
        ),
    ).toBe(5);
    const result = await agent.run('go').result;
    expect(result.toolCalls.map((c) => c.name)).toEqual(['add', 'plus']);
  });

  it('scripted model from inline turns, with retry middleware and instruction templates', async () => {
    const files = {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: scripted\ninstruction: "Help {{ state.who }} ({{ agent.name }}) with {{ input }} {{ nope }}"\nmiddleware: [{ retry: { max_attempts: 2, initial_delay: 1ms } }]\n---\nkind: model\nname: scripted\nprovider: offline\nmodel: script\nscript:\n  - error: { message: flaky, code: PROVIDER_ERROR, retryable: true }\n  - text: ok\n',
    };
    const { runtime, diagnostics } = await compile(files);
    // `{{ nope }}` is no template; `{{ state.who }}` is one that nothing in the project sets.
    expect(diagnostics.map((d) => d.rule)).toEqual(['instruction-template', 'unset-state-key']);
    const agent = runtime!.agents.get('a')!;
    const instruction = agent.getConfig().instruction as (c: object) => string;
    expect(instruction({ agent: 'a', input: 'taxes', state: { who: 'Ada' } })).toBe(
      'Help Ada (a) with taxes ',
    );
    expect((await agent.run('hi').result).text).toBe('ok');
  });

  it('instruction_file is read relative to its YAML file and rendered; env_file fills ${VAR} under the environment', async () => {
    const files = {
      'agentctl.yaml': 'kind: project\nenv_file: conf/local.env\n',
      'conf/local.env': 'WHO=from-env-file\nPLACE=file-place\n',
      '.env': 'WHO=from-dotenv\n',
      'agents/a.yaml':
        'kind: agent\nname: a\ndescription: "${WHO} at ${PLACE}"\nmodel: offline/echo\ninstruction_file: ./prompts/a.md\n',
      'agents/prompts/a.md': 'Help {{ state.who }} ({{ agent.name }}) with {{ input }}.\n',
    };
    const { runtime, diagnostics } = await compile(files, { PLACE: 'shell-place' });
    // The file's templates are checked as an inline instruction's: nothing in the project sets `who`.
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'agents/prompts/a.md:1:6: warning: `{{ state.who }}` renders empty: no agent has `output_key: who` and no module tool sets it [unset-state-key]',
    ]);
    try {
      const agent = runtime!.agents.get('a')!;
      // env_file replaces .env; the environment wins over the file.
      expect(agent.description).toBe('from-env-file at shell-place');
      const instruction = agent.getConfig().instruction as (c: object) => string;
      expect(instruction({ agent: 'a', input: 'taxes', state: { who: 'Ada' } })).toBe(
        'Help Ada (a) with taxes.\n',
      );
    } finally {
      await runtime?.dispose();
    }
  });

  it('pricing from YAML prices every usage bucket: input, output, cache_read, cache_write', async () => {
    const files = {
      'agents/a.yaml': [
        'kind: agent',
        'name: a',
        'model: priced',
        '---',
        'kind: model',
        'name: priced',
        'provider: offline',
        'model: script',
        'pricing: { input: 2, output: 8, cache_read: 0.5, cache_write: 2.5 }',
        'script:',
        '  - text: ok',
        '    usage: { input_tokens: 1000, output_tokens: 100, cache_read_tokens: 500, cache_write_tokens: 200 }',
        '',
      ].join('\n'),
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    try {
      const result = await runtime!.agents.get('a')!.run('hi').result;
      expect(result.usage).toMatchObject({ cacheReadTokens: 500, cacheWriteTokens: 200 });
      expect(result.usage.estimatedCost).toBeCloseTo((1000 * 2 + 100 * 8 + 500 * 0.5 + 200 * 2.5) / 1e6, 12);
    } finally {
      await runtime?.dispose();
    }
  });

  it('disallow_transfer_to_parent and _to_peers from YAML: such transfers are refused as invalid calls', async () => {
    // Two trees: in each the sub-agent `child` tries the transfer its flag forbids, then answers.
    const tree = (root: string, flag: string, target: string) =>
      [
        `kind: agent\nname: ${root}\nmodel: ${root}-script\nsub_agents: [${root}-child, ${root}-peer]`,
        `kind: agent\nname: ${root}-child\nmodel: ${root}-child-script\n${flag}: true`,
        `kind: agent\nname: ${root}-peer\nmodel: offline/echo`,
        `kind: model\nname: ${root}-script\nprovider: offline\nmodel: script\nscript:\n  - tool_calls: [{ name: transfer_to_agent, arguments: { agent_name: ${root}-child } }]`,
        `kind: model\nname: ${root}-child-script\nprovider: offline\nmodel: script\nscript:\n  - tool_calls: [{ name: transfer_to_agent, arguments: { agent_name: ${target} } }]\n  - text: staying`,
      ].join('\n---\n');
    const files = {
      'agents/a.yaml': `${tree('up', 'disallow_transfer_to_parent', 'up')}\n---\n${tree('side', 'disallow_transfer_to_peers', 'side-peer')}\n`,
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    try {
      for (const root of ['up', 'side']) {
        const events: AgentEvent[] = [];
        const run = new Runner({ agent: runtime!.agents.get(root)! }).run({ input: 'go' });
        for await (const event of run) events.push(event);
        expect((await run.invocation).output, root).toBe('staying');
        expect(
          events.filter((e) => e.type === 'tool_result' && e.author === `${root}-child`),
          root,
        ).toEqual([expect.objectContaining({ isError: true, errorCode: 'TOOL_VALIDATION_ERROR' })]);
      }
    } finally {
      await runtime?.dispose();
    }
  });

  it('a retry middleware with on: [tool_call] from YAML runs a tool again after a connection reset', async () => {
    const files = {
      'agents/a.yaml': [
        'kind: agent',
        'name: a',
        'model: calls',
        'tools: [{ module: ./tools/flaky.ts }]',
        'middleware: [{ retry: { max_attempts: 2, initial_delay: 1ms, on: [tool_call] } }]',
        '---',
        'kind: agent',
        'name: b',
        'model: calls',
        'tools: [{ module: ./tools/flaky.ts }]',
        'middleware: [{ retry: { max_attempts: 2, initial_delay: 1ms } }]',
        '---',
        'kind: model',
        'name: calls',
        'provider: offline',
        'model: script',
        'script:',
        '  - tool_calls: [{ name: flaky, arguments: {} }]',
        '  - text: done',
        '  - tool_calls: [{ name: flaky, arguments: {} }]',
        '  - text: done',
        '',
      ].join('\n'),
      // Fails every other call with a reset connection.
      'agents/tools/flaky.ts':
        "let calls = 0;\nexport default { name: 'flaky', description: 'flaky', parameters: { type: 'object', properties: {} }, execute: () => { calls++; if (calls % 2 === 1) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }); return `call ${calls}`; } };\n",
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    try {
      const retried = await runtime!.agents.get('a')!.run('go').result;
      expect(retried.toolCalls.map((c) => [c.isError, c.result])).toEqual([[false, 'call 2']]);
      const once = await runtime!.agents.get('b')!.run('go').result;
      expect(once.toolCalls.map((c) => [c.isError, c.result])).toEqual([
        [true, 'Tool flaky failed: socket hang up'],
      ]);
    } finally {
      await runtime?.dispose();
    }
  });

  it('a timeout middleware from YAML bounds tool calls and model calls by its own durations', async () => {
    const files = {
      'agents/a.yaml': [
        'kind: agent',
        'name: tools',
        'model: calls-slow',
        'tools: [{ module: ./tools/slow.ts }]',
        'middleware: [{ timeout: { tool: 50ms } }]',
        '---',
        'kind: agent',
        'name: models',
        'model: sleepy',
        'middleware: [{ timeout: { model: 50ms } }]',
        '---',
        'kind: model',
        'name: calls-slow',
        'provider: offline',
        'model: script',
        'script:',
        '  - tool_calls: [{ name: slow, arguments: {} }]',
        '  - text: done',
        '---',
        'kind: model',
        'name: sleepy',
        'provider: offline',
        'model: script',
        'script:',
        '  - text: too late',
        '    delay_ms: 10000',
        '',
      ].join('\n'),
      'agents/tools/slow.ts':
        "export default { name: 'slow', description: 'slow', parameters: { type: 'object', properties: {} }, execute: (_: unknown, { signal }: { signal: AbortSignal }) => new Promise((resolve, reject) => { const t = setTimeout(() => resolve('finished'), 10_000); signal.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }); }) };\n",
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    try {
      const tools = await runtime!.agents.get('tools')!.run('go').result;
      expect(tools.output).toBe('done');
      expect(tools.toolCalls[0]).toMatchObject({ isError: true });
      expect(String(tools.toolCalls[0].result)).toContain('timed out after 50 ms');
      await expect(runtime!.agents.get('models')!.run('go').result).rejects.toMatchObject({
        code: 'TIMEOUT',
      });
    } finally {
      await runtime?.dispose();
    }
  });

  it('redaction and logging middleware take their options from YAML: patterns, builtins, replacement, verbose', async () => {
    const files = {
      'agents/a.yaml': [
        'kind: agent',
        'name: a',
        'model: offline/echo',
        'middleware:',
        '  - { redaction: { patterns: ["ORD-[0-9]+"], builtins: false, replacement: "<hidden>" } }',
        '  - { logging: { verbose: true } }',
        '---',
        'kind: agent',
        'name: b',
        'model: offline/echo',
        'middleware: [redaction, logging]',
        '',
      ].join('\n'),
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => {
      lines.push(line);
    });
    try {
      const a = await runtime!.agents.get('a')!.run('ORD-42 for ada@example.com').result;
      // Only the project's pattern, with its replacement: the built-in e-mail pattern is off.
      expect(a.text).toBe('<hidden> for ada@example.com');
      // Verbose: the whole payload as JSON, not the one-line summary; redacted like the model's input.
      expect(lines[0]).toMatch(
        /^\[a\] loop_start \{"prompt":"<hidden> for ada@example\.com".*\} \(\d+ ms\)$/,
      );
      lines.length = 0;
      const b = await runtime!.agents.get('b')!.run('ORD-42 for ada@example.com').result;
      expect(b.text).toBe('ORD-42 for [REDACTED]');
      expect(lines[0]).toMatch(/^\[b\] loop_start "ORD-42 for \[REDACTED\]" \(\d+ ms\)$/);
    } finally {
      spy.mockRestore();
      await runtime?.dispose();
    }
  });

  it('a missing provider is a diagnostic naming the provider and the model; other agents still compile', async () => {
    const files = {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: gpt\n---\nkind: agent\nname: b\n---\nkind: model\nname: gpt\nprovider: openai\nmodel: gpt-4.1-mini\napi_key: ${OPENAI_API_KEY}\n',
    };
    const { runtime, diagnostics } = await compile(files, { OPENAI_API_KEY: 'sk-secret-value' });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /agents\/a\.yaml:10:11: error: provider `openai` of model `gpt` is not available/,
      ),
    ]);
    expect([...runtime!.agents.keys()]).toEqual(['b']);
  });

  it('registered providers receive the interpolated model; secrets never reach diagnostics', async () => {
    const files = {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: live\n---\nkind: model\nname: live\nprovider: fake\nmodel: m1\napi_key: ${KEY:?set KEY}\nbase_url: ${BASE:-http://127.0.0.1:9}\n',
    };
    const registry = createRegistry().registerProvider('fake', (model) => {
      throw new Error(`cannot connect with key ${model.apiKey} to ${model.baseUrl}`);
    });
    const root = await project(files);
    const loaded = await loadProject({ project: root, env: {} });
    expect(loaded.diagnostics.map((d) => [d.rule, d.severity])).toEqual([['env-required', 'warning']]);
    const missing = await compileProject(loaded, { registry, env: {} });
    expect(missing.diagnostics.map((d) => [d.rule, d.severity, d.message])).toEqual([
      ['env-required', 'error', 'environment variable KEY is not set: set KEY'],
    ]);
    const failed = await compileProject(loaded, { registry, env: { KEY: 'sk-very-secret' } });
    expect(failed.diagnostics[0].message).toBe('cannot connect with key *** to http://127.0.0.1:9');
  });

  it('in a URL, a value the words before it name a credential is secret; a tenant beside it is not', async () => {
    const files = {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: live\n---\nkind: model\nname: live\nprovider: fake\nmodel: m1\napi_key: k-1234\nbase_url: "http://127.0.0.1:9/${TENANT}/v1?api_key=${GATE}"\n',
    };
    const registry = createRegistry().registerProvider('fake', (model) => {
      throw new Error(`cannot connect to ${model.baseUrl}`);
    });
    const loaded = await loadProject({ project: await project(files), env: {} });
    const failed = await compileProject(loaded, { registry, env: { TENANT: 'acme', GATE: 'gate' } });
    expect(failed.diagnostics[0].message).toBe('cannot connect to http://127.0.0.1:9/acme/v1?api_key=***');
  });

  it('a duration that comes from a variable is checked as resolved: by validate with its environment, at the field', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nmiddleware: [{ timeout: { model: "${MODEL_TIMEOUT:-2s}" } }]\nlimits: { timeout: "${T:-soon}" }\n',
    });
    const registry = createRegistry();
    const at = (d: { line: number; col: number; rule: string; message: string }) =>
      `${d.line}:${d.col} ${d.rule} ${d.message}`;
    const loaded = await loadProject({ project: root, env: {}, registry });
    expect(loaded.diagnostics.map(at)).toEqual([
      '5:20 env-values limits.timeout: "soon" is not a duration (use e.g. 500ms, 30s, 2m, 1h)',
    ]);
    const fine = await loadProject({ project: root, env: { T: '1m' }, registry });
    expect(fine.diagnostics).toEqual([]);
    // Compiled with another environment than it was validated with: the error names the field too.
    const compiled = await compileProject(fine, { registry, env: { T: '1m', MODEL_TIMEOUT: 'never' } });
    expect(compiled.diagnostics.map(at)).toEqual([
      '4:34 env-values model: "never" is not a duration (use e.g. 500ms, 30s, 2m, 1h)',
    ]);
    await compiled.runtime?.dispose();
  });

  it('compiles workflow agents, sub-agents and agent tools into one linked tree that runs', async () => {
    const files = {
      'agents/a.yaml': [
        'kind: agent\nname: a\ntype: sequential\nsub_agents: [b, { name: d, model: offline/echo, output_key: echoed }]',
        'kind: agent\nname: b\nmodel: offline/auto\ntools:\n  - agent: c',
        'kind: agent\nname: c\ndescription: answers c\nmodel: offline/echo',
      ].join('\n---\n'),
    };
    const { runtime, diagnostics } = await compile(files);
    expect(diagnostics).toEqual([]);
    const root = runtime!.agents.get('a')!;
    expect(root.type).toBe('sequential');
    expect(root.subAgents.map((x) => x.name)).toEqual(['b', 'd']);
    expect(runtime!.agents.get('d')?.parent).toBe(root);
    const run = new Runner({ agent: root }).run({ input: 'hello tree' });
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.invocation;
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ author: 'b', call: { name: 'c' } });
    expect(events.some((e) => e.author === 'c' && e.branch === 'a.b.c')).toBe(true);
    expect(result.state.echoed).toBe(result.output);
  });

  it('refuses to compile a project with load errors', async () => {
    const { runtime, diagnostics } = await compile({ 'agents/a.yaml': 'kind: agent\nname: a\nmodle: x\n' });
    expect(runtime).toBeUndefined();
    expect(diagnostics.map((d) => d.rule)).toEqual(['unknown-key']);
  });

  it('reads .env at the project root, under the given environment', async () => {
    const files = {
      '.env': '# comment\nWHO="from dotenv"\nOTHER=x\n',
      'agents/a.yaml': 'kind: agent\nname: a\ninstruction: "hi ${WHO} ${OTHER}"\n',
    };
    const { runtime } = await compile(files, { OTHER: 'given' });
    const instruction = runtime!.agents.get('a')!.getConfig().instruction as (c: object) => string;
    expect(instruction({ agent: 'a', input: '', state: {} })).toBe('hi from dotenv given');
  });
});
