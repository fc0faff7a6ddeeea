import { afterEach, describe, expect, it } from 'vitest';
import { AgentError, type InvocationResult, Runner } from '../packages/core/src/index.js';
import { openaiText, openaiToolCalls } from '../packages/provider-openai/test/support/openai-wire.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';
import { type CompiledProject, compileYaml } from './support/yaml-project.js';

// Every agent and model field that changes behaviour, from YAML through compileProject and the
// Runner to what is observed: the request on the wire, the error, the session state, the pause.

const open: Array<CompiledProject | FakeServer> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function server(...replies: Parameters<FakeServer['reply']>): Promise<FakeServer> {
  const s = await startFakeServer(replies);
  open.push(s);
  return s;
}

async function compile(agentYaml: string, extra: Record<string, string> = {}): Promise<CompiledProject> {
  const project = await compileYaml({ 'agents/a.yaml': agentYaml, ...extra });
  open.push(project);
  return project;
}

function netModel(url: string, extra = ''): string {
  return `---\nkind: model\nname: net\nprovider: openai\nmodel: m\nbase_url: ${url}\nretry: { max_attempts: 1 }\n${extra}`;
}

function run(project: CompiledProject, input = 'hi', agent = 'a'): Promise<InvocationResult> {
  return new Runner({ agent: project.agent(agent) }).run({ input }).invocation;
}

async function fails(project: CompiledProject): Promise<AgentError> {
  const error = await run(project).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

// A script model that calls current_time forever.
const LOOPING = `---
kind: model
name: loop
provider: offline
model: script
script:
${'  - tool_calls: [{ name: current_time, arguments: {} }]\n'.repeat(6)}  - text: done
`;

describe('YAML fields change behaviour', () => {
  it('limits.max_iterations stops the loop at that many model calls', async () => {
    const project = await compile(
      `kind: agent\nname: a\nmodel: loop\ntools: [{ builtin: current_time }]\nlimits: { max_iterations: 2 }\n${LOOPING}`,
    );
    const error = await fails(project);
    expect(error.code).toBe('MAX_ITERATIONS_EXCEEDED');
    expect(error.context).toMatchObject({ limit: 2 });
  });

  it('limits.max_tokens stops the run once the tokens are spent', async () => {
    const s = await server(sse(openaiText('a', { usage: { prompt_tokens: 500, completion_tokens: 10 } })));
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\nlimits: { max_tokens: 100 }\n${netModel(s.url)}`,
    );
    const error = await fails(project);
    expect(error.code).toBe('MAX_TOKENS_EXCEEDED');
  });

  it('limits.timeout bounds the agent', async () => {
    const s = await server({ hang: true });
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\nlimits: { timeout: 150ms }\n${netModel(s.url)}`,
    );
    const error = await fails(project);
    expect(error.code).toBe('TIMEOUT');
    expect(error.context).toMatchObject({ agent: 'a', limit: 150 });
  });

  it('limits.tool_timeout fails a slow tool call with a timeout the model sees', async () => {
    const s = await server(
      sse(openaiToolCalls([{ id: 'c1', name: 'slow', arguments: {} }])),
      sse(openaiText('ok')),
    );
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\ntools: [{ module: ../tools/slow.ts }]\nlimits: { tool_timeout: 100ms }\n${netModel(s.url)}`,
      {
        'tools/slow.ts': `export default { name: 'slow', description: 'slow', parameters: { type: 'object', properties: {} },
  execute: (_a: unknown, ctx: { signal: AbortSignal }) => new Promise((resolve) => { const t = setTimeout(resolve, 5000, 'late'); ctx.signal.addEventListener('abort', () => clearTimeout(t)); }) };\n`,
      },
    );
    const result = await run(project);
    expect(result.toolCalls[0]).toMatchObject({ name: 'slow', isError: true });
    expect(String(result.toolCalls[0].result)).toContain('timed out after 100 ms');
  });

  it('temperature, top_p, max_output_tokens and instruction reach the request', async () => {
    const s = await server(sse(openaiText('ok')));
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\ninstruction: Be brief.\ntemperature: 0.3\ntop_p: 0.7\nmax_output_tokens: 77\n${netModel(s.url)}`,
    );
    await run(project);
    const body = s.requests[0].body;
    expect(body.temperature).toBe(0.3);
    expect(body.top_p).toBe(0.7);
    expect(body.max_completion_tokens ?? body.max_tokens).toBe(77);
    expect(body.messages[0]).toMatchObject({ role: 'system', content: 'Be brief.' });
  });

  it("the model's own sampling settings reach the request when the agent sets none", async () => {
    const s = await server(sse(openaiText('ok')));
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\n${netModel(s.url, 'temperature: 0.9\nmax_output_tokens: 55\n')}`,
    );
    await run(project);
    expect(s.requests[0].body.temperature).toBe(0.9);
    expect(s.requests[0].body.max_completion_tokens ?? s.requests[0].body.max_tokens).toBe(55);
  });

  it('output_schema is sent as the response format and parses the answer; output_key saves it in state', async () => {
    const s = await server(sse(openaiText('{"queue":"billing"}')));
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\noutput_schema: { type: object, properties: { queue: { enum: [billing, tech] } }, required: [queue] }\noutput_key: routing\n${netModel(s.url)}`,
    );
    const result = await run(project);
    expect(s.requests[0].body.response_format?.type).toBe('json_schema');
    expect(result.value).toEqual({ queue: 'billing' });
    expect(result.state.routing).toEqual({ queue: 'billing' });
  });

  it('output_schema rejects an answer that does not match', async () => {
    const s = await server(sse(openaiText('{"queue":"sales"}')));
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\noutput_schema: { type: object, properties: { queue: { enum: [billing, tech] } }, required: [queue] }\n${netModel(s.url)}`,
    );
    expect((await fails(project)).code).toBe('OUTPUT_PARSE_ERROR');
  });

  it('approval pauses before the tool runs', async () => {
    const s = await server(sse(openaiToolCalls([{ id: 'c1', name: 'current_time', arguments: {} }])));
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\ntools: [{ builtin: current_time }]\napproval: { tools: { current_time: always } }\n${netModel(s.url)}`,
    );
    const result = await run(project);
    expect(result.status).toBe('paused');
    expect(result.pending?.[0].call.id).toBe('c1');
  });

  it('max_history bounds the messages sent to the model', async () => {
    const s = await server(
      sse(openaiToolCalls([{ id: 'c1', name: 'current_time', arguments: {} }])),
      sse(openaiToolCalls([{ id: 'c2', name: 'current_time', arguments: {} }])),
      sse(openaiText('ok')),
    );
    const project = await compile(
      `kind: agent\nname: a\nmodel: net\ntools: [{ builtin: current_time }]\nmax_history: 2\n${netModel(s.url)}`,
    );
    await run(project);
    const sent = s.requests[2].body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(sent.length).toBeLessThanOrEqual(3);
    expect(sent.length).toBeLessThan(5);
  });

  it('a model timeout fails a silent server', async () => {
    const s = await server({ hang: true });
    const project = await compile(`kind: agent\nname: a\nmodel: net\n${netModel(s.url, 'timeout: 150ms\n')}`);
    const error = await fails(project);
    expect(error.code).toBe('TIMEOUT');
    expect(error.context).toMatchObject({ timeoutMs: 150 });
  });
});
