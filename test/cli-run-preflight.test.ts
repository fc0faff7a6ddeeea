import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

// No key anywhere: the variables a developer's shell may hold are removed from every run.
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, MY_KEY: undefined };

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

async function sessionFiles(dir: string): Promise<string[]> {
  return (await readdir(join(dir, '.agentctl/sessions')).catch(() => [] as string[])).filter(
    (f) => f.endsWith('.jsonl') && f !== 'index.jsonl',
  );
}

describe('a run whose model has no API key', () => {
  it('is refused before a session is written, naming the variable and the YAML line', async () => {
    const dir = await tempProject({
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: openai/gpt-4o-mini\n',
      'agents/b.yaml': `kind: model
name: fast
provider: anthropic
model: claude-sonnet-4-6
api_key: \${MY_KEY:-}
---
kind: agent
name: b
model: fast
`,
    });
    const inline = await agentctl(['run', 'a', 'hi'], { cwd: dir, env: NO_KEYS });
    expect(inline.code).toBe(1);
    expect(inline.stderr).toContain(
      "agents/a.yaml:3:8: error: model `openai/gpt-4o-mini` has no API key: set OPENAI_API_KEY in the environment or the project's .env, or `api_key:` in a `kind: model`; or try the agent offline with no key: `--model offline/echo` [api-key]",
    );
    expect(inline.stderr).not.toContain('session ');
    const named = await agentctl(['run', 'b', 'hi', '--json'], { cwd: dir, env: NO_KEYS });
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(
      'agents/b.yaml:5:10: error: model `fast` (anthropic claude-sonnet-4-6) has no API key: set MY_KEY',
    );
    expect(named.stdout).toBe('');
    // --watch refuses the first build the same way, rather than write a failed session per save.
    const watched = await agentctl(['run', 'a', 'hi', '--watch'], { cwd: dir, env: NO_KEYS });
    expect(watched.code).toBe(1);
    expect(watched.stderr).toContain('agents/a.yaml:3:8: error: model `openai/gpt-4o-mini` has no API key');
    expect(await sessionFiles(dir)).toEqual([]);
    const list = await agentctl(['sessions', 'list'], { cwd: dir });
    expect(list.stdout + list.stderr).toContain('no sessions');
    // validate needs no key.
    expect((await agentctl(['validate'], { cwd: dir, env: NO_KEYS })).code).toBe(0);
  });

  it("blames the project's defaults.model for a sub-agent that takes its model from there", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: p\ndefaults:\n  model: openai/gpt-4.1-mini\n',
      'agents/a.yaml':
        'kind: agent\nname: root\nmodel: offline/echo\nsub_agents: [child]\n---\nkind: agent\nname: child\ndescription: c\n',
    });
    const run = await agentctl(['run', 'root', 'hi'], { cwd: dir, env: NO_KEYS });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'agentctl.yaml:4:10: error: model `openai/gpt-4.1-mini` has no API key: set OPENAI_API_KEY',
    );
    expect(await sessionFiles(dir)).toEqual([]);
  });

  it("says a model --model gives is the flag's, and warns at a likely typo in it", async () => {
    const dir = await tempProject({ 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n' });
    const run = await agentctl(['run', 'a', 'hi', '--model', 'openai/gpt-4o-mnii'], {
      cwd: dir,
      env: NO_KEYS,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "warning: --model openai/gpt-4o-mnii: openai has no model `gpt-4o-mnii` in agentctl's catalogue; did you mean `openai/gpt-4o-mini`?",
    );
    expect(run.stderr).toContain(
      'error: model `openai/gpt-4o-mnii` (given by --model) has no API key: set OPENAI_API_KEY',
    );
    expect(await sessionFiles(dir)).toEqual([]);
  });

  it('leaves a resumed session as it was', async () => {
    const dir = await tempProject({ 'agents/a.yaml': 'kind: agent\nname: a\nmodel: openai/gpt-4o-mini\n' });
    const first = await agentctl(['run', 'a', 'hi', '--session', 'kept', '--model', 'offline/echo'], {
      cwd: dir,
      env: NO_KEYS,
    });
    expect(first.code, first.stderr).toBe(0);
    const file = join(dir, '.agentctl/sessions/kept.jsonl');
    const before = await readFile(file, 'utf8');
    const resumed = await agentctl(['run', 'a', 'again', '--session', 'kept'], { cwd: dir, env: NO_KEYS });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('has no API key: set OPENAI_API_KEY');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await sessionFiles(dir)).toEqual(['kept.jsonl']);
  });

  it("reads the provider's variable from the project's .env", async () => {
    // A server on loopback needs no key; the one in .env is still the one sent.
    const dir = await tempProject({
      'agents/a.yaml': `kind: model
name: m
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
---
kind: agent
name: a
model: m
`,
      '.env': 'OPENAI_API_KEY=sk-from-dotenv\n',
    });
    server.reply({ sse: openaiText('Hello.') });
    const run = await agentctl(['run', 'a', 'hi', '--json'], { cwd: dir, env: NO_KEYS });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer sk-from-dotenv');
    expect(run.stdout).not.toContain('sk-from-dotenv');
  });
});

describe('the usage summary after a model call that failed', () => {
  it('counts the call and says it failed, in text and in --json', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: model
name: m
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
retry: { max_attempts: 1 }
---
kind: agent
name: a
model: m
`,
    });
    const refusal = {
      status: 400,
      json: { error: { message: 'bad request', type: 'invalid_request_error' } },
    };
    server.reply(refusal);
    const text = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('· 1 model call (1 failed) ·');
    server.reply(refusal);
    const json = await agentctl(['run', 'a', 'hi', '--json'], { cwd: dir });
    const end = parseNdjson(json.stdout).at(-1) as { type: string; usage: Record<string, number> };
    expect(end.type).toBe('run_end');
    expect(end.usage).toMatchObject({ iterations: 1, failedCalls: 1 });
  });
});

describe('a value ${VAR} leaves invalid', () => {
  it('is refused by validate and run alike, as the same value written as is would be', async () => {
    // Unset, `${NOPE_URL}` is empty: the provider's own endpoint would get the request and the key.
    const dir = await tempProject({
      'agents/a.yaml': `kind: model
name: m
provider: openai
model: gpt-4.1-mini
base_url: \${NOPE_URL}
api_key: sk-test
---
kind: agent
name: a
model: m
`,
    });
    const expected =
      'agents/a.yaml:5:11: error: the base_url `${NOPE_URL}` is empty with this environment; set the variable or give a non-empty default [env-empty]';
    const env = { NOPE_URL: undefined };
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(expected);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(expected);
    expect(await sessionFiles(dir)).toEqual([]);
    // Set, it runs against the server it names.
    server.reply({ sse: openaiText('Hello.') });
    const set = await agentctl(['run', 'a', 'hi'], { cwd: dir, env: { NOPE_URL: server.url } });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('Hello.\n');
  });
});

describe('a model base_url that is no http(s) URL', () => {
  it('is refused by validate and run, written as is or made so by ${VAR}', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: model
name: local
provider: openai
model: llama3.2
base_url: localhost:11434/v1
---
kind: model
name: proxied
provider: openai
model: gpt-4.1-mini
base_url: \${LLM_HOST}/v1
api_key: sk-test
---
kind: agent
name: a
model: local
---
kind: agent
name: b
model: proxied
`,
    });
    const env = { LLM_HOST: undefined };
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'agents/a.yaml:5:11: error: `base_url` is not valid: "localhost:11434/v1"; expected the API\'s base URL',
    );
    expect(check.stdout).toContain(
      'agents/a.yaml:11:11: error: base_url: is not an http:// or https:// URL with this environment [env-values]',
    );
    const run = await agentctl(['run', 'b', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agents/a.yaml:11:11: error: base_url: is not an http:// or https:// URL');
    expect(await sessionFiles(dir)).toEqual([]);
    server.reply({ sse: openaiText('Hello.') });
    const set = await agentctl(['run', 'b', 'hi'], {
      cwd: dir,
      env: { LLM_HOST: server.url.replace(/\/v1$/, '') },
    });
    expect(set.code, set.stderr).toBe(0);
  });
});

describe('an http tool whose url ${VAR} leaves invalid', () => {
  it('is refused by validate as run refuses it', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: tool
name: lookup
description: Looks an order up
parameters: { type: object, properties: { id: { type: string } }, required: [id], additionalProperties: false }
http: { url: "\${API_BASE}/orders/{{ args.id }}", method: GET }
---
kind: agent
name: a
model: offline/echo
tools: [lookup]
`,
    });
    const env = { API_BASE: undefined };
    const expected =
      'agents/a.yaml:5:14: error: tool kind http: url is not a valid URL once `${API_BASE}/orders/{{ args.id }}` is resolved with this environment [env-values]';
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(expected);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(expected);
    const set = await agentctl(['validate'], { cwd: dir, env: { API_BASE: 'https://shop.example' } });
    expect(set.code, set.stdout).toBe(0);
  });
});

describe('an MCP toolset url that is no http(s) URL', () => {
  it('is refused by validate as by run, written as is or made so by ${VAR}, offline', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: toolset
name: docs
mcp: { url: "\${MCP_HOST}/mcp" }
---
kind: toolset
name: local
mcp: { url: "localhost:3000/mcp" }
---
kind: agent
name: a
model: offline/echo
tools: [{ toolset: docs }, { toolset: local }]
`,
    });
    const env = { MCP_HOST: undefined };
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'agents/a.yaml:3:13: error: mcp.url: is not an http:// or https:// URL with this environment [env-values]',
    );
    expect(check.stdout).toContain('agents/a.yaml:7:13: error: `url` is not valid: "localhost:3000/mcp"');
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agents/a.yaml:3:13: error: mcp.url: is not an http:// or https:// URL');
    expect(await sessionFiles(dir)).toEqual([]);
  });
});

describe('a remote agent url that is no http(s) URL', () => {
  it('is refused by validate as by run, written as is or made so by ${VAR}', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: agent
name: billing
type: a2a
url: \${BILLING_HOST}/a2a/billing
---
kind: agent
name: tech
type: a2a
url: localhost:8787/a2a/tech
`,
    });
    const env = { BILLING_HOST: undefined };
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'agents/a.yaml:4:6: error: url: is not an http:// or https:// URL with this environment [env-values]',
    );
    expect(check.stdout).toContain('agents/a.yaml:9:6: error: `url` is not valid: "localhost:8787/a2a/tech"');
    const run = await agentctl(['run', 'billing', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agents/a.yaml:4:6: error: url: is not an http:// or https:// URL');
    expect(await sessionFiles(dir)).toEqual([]);
  });
});

describe('a url with a user or password in it', () => {
  it('is refused by validate as by run (fetch would refuse every request), never repeating the password', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: agent
name: billing
type: a2a
url: http://ops:hunter2@127.0.0.1:9/a2a/billing
---
kind: agent
name: tech
type: a2a
url: \${TECH_URL}
---
kind: agent
name: helper
model: offline/echo
tools: [{ toolset: docs }]
---
kind: toolset
name: docs
mcp: { url: "https://ops:hunter2@127.0.0.1:9/mcp" }
`,
    });
    const env = { TECH_URL: 'https://ops:hunter2@127.0.0.1:9/a2a/tech' };
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'agents/a.yaml:4:6: error: `url` is not valid: "http://***@127.0.0.1:9/a2a/billing"; expected type a2a: the remote agent\'s A2A endpoint',
    );
    expect(check.stdout).toContain(
      'agents/a.yaml:9:6: error: url: has a user name or password in it, which no request may carry; send them in a header instead (`authorization: Basic ...` in `headers`) [env-values]',
    );
    expect(check.stdout).toContain(
      'agents/a.yaml:18:13: error: `url` is not valid: "https://***@127.0.0.1:9/mcp"',
    );
    expect(check.stdout).not.toContain('hunter2');
    for (const agent of ['billing', 'tech', 'helper']) {
      const run = await agentctl(['run', agent, 'hi'], { cwd: dir, env });
      expect(run.code, agent).toBe(1);
      expect(run.stderr).not.toContain('hunter2');
    }
    expect(await sessionFiles(dir)).toEqual([]);
  });

  it('is refused in an http tool as written, through a ${VAR} and from an argument, before any session', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: agent
name: shop
model: offline/auto
tools: [orders, stock, by_user]
---
kind: tool
name: orders
parameters: { type: object, properties: { id: { type: string } }, required: [id] }
http: { url: "http://ops:hunter2@127.0.0.1:9/orders/{{ args.id }}", allowed_hosts: [127.0.0.1:9] }
---
kind: tool
name: stock
parameters: { type: object, properties: { id: { type: string } }, required: [id] }
http: { url: "\${SHOP_URL}/stock/{{ args.id }}" }
---
kind: tool
name: by_user
parameters: { type: object, properties: { who: { type: string } }, required: [who] }
http: { url: "http://{{ args.who }}@127.0.0.1:9/x", allowed_hosts: [127.0.0.1:9] }
`,
    });
    const env = { SHOP_URL: 'http://ops:hunter2@127.0.0.1:9' };
    const problem =
      'url has a user name or password in it, which no request may carry; send them in a header instead (`authorization: Basic ...` in `headers`)';
    const check = await agentctl(['validate'], { cwd: dir, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`agents/a.yaml:9:14: error: tool kind http: ${problem} [plugin-options]`);
    expect(check.stdout).toContain(`agents/a.yaml:14:14: error: tool kind http: ${problem} once`);
    expect(check.stdout).toContain(`agents/a.yaml:19:14: error: tool kind http: ${problem} [plugin-options]`);
    expect(check.stdout).not.toContain('hunter2');
    const run = await agentctl(['run', 'shop', 'hi', '--approve-all'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(problem);
    expect(run.stderr).not.toContain('hunter2');
    expect(await sessionFiles(dir)).toEqual([]);
  });
});
