// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} interpolation under test.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentEvent, Runner } from '@agentctl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
        'kind: agent\nname: a\nmodel: scripted\ninstruction: "Help {{ state.who }} ({{ agent.name }}) with {{ input }} {{ nope }}"\nmiddleware: [{ retry: { max_attempts: 2, initial_delay: 1 } }]\n---\nkind: model\nname: scripted\nprovider: offline\nmodel: script\nscript:\n  - error: { message: flaky, code: PROVIDER_ERROR, retryable: true }\n  - text: ok\n',
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
