import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentctl,
  BIN,
  cliEnv,
  fixtureProject,
  parseNdjson,
  removeTempDirs,
  tempDir,
} from './support/cli.js';
import { type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver.js';
import { startServe, stopServers } from './support/serve.js';

const SECRET = 's3cr3t-value-42';
let project: string;

beforeAll(async () => {
  project = await fixtureProject('traced');
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

/** Runs `agentctl run` in the traced project with an OTLP endpoint pointing at a fresh receiver. */
async function tracedRun(args: string[], env: Record<string, string | undefined> = {}) {
  const receiver = await startOtlpReceiver();
  try {
    const result = await agentctl(['run', ...args, '--json'], {
      cwd: project,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACE_SECRET: SECRET, ...env },
    });
    return { ...result, receiver };
  } finally {
    await receiver.close();
  }
}

function byName(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found, `one span named ${name} among ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0];
}

const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId).map((s) => s.name);

describe('agentctl run with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('exports the invocation, agents, model calls and tool calls as GenAI spans over OTLP/HTTP protobuf', async () => {
    const { code, stderr, stdout, receiver } = await tracedRun(['triage', 'where is my invoice?']);
    expect(code, stderr).toBe(0);
    expect(
      receiver.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/x-protobuf'),
    ).toBe(true);
    const spans = receiver.spans;
    const events = parseNdjson(stdout);
    const runStart = events.find((e) => e.type === 'run_start')!;

    // One trace, rooted at the invocation.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const invocation = byName(spans, 'invocation triage');
    expect(invocation.parentSpanId).toBe('');
    expect(invocation.attributes).toMatchObject({
      'gen_ai.agent.name': 'triage',
      'agentctl.invocation.id': runStart.invocationId,
      'agentctl.run.status': 'complete',
      'agentctl.usage.input_tokens': expect.any(Number),
    });
    expect(invocation.attributes['gen_ai.conversation.id']).toBe(
      invocation.attributes['agentctl.session.id'],
    );
    expect(invocation.resource['service.name']).toBe('agentctl');
    expect(invocation.scope).toBe('@agentctl/tracing');

    const triage = byName(spans, 'invoke_agent triage');
    expect(triage.parentSpanId).toBe(invocation.spanId);
    expect(triage.kind).toBe(1);
    expect(triage.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'triage',
      'gen_ai.agent.description': 'Routes questions',
      'agentctl.agent.type': 'llm',
    });
    expect(childrenOf(spans, triage).sort()).toEqual([
      'chat script',
      'chat script',
      'execute_tool lookup_invoice',
      'execute_tool transfer_to_agent',
      'invoke_agent billing',
    ]);
    expect(triage.events).toEqual([
      { name: 'transfer', attributes: { 'agentctl.transfer.to': 'billing' }, timeMs: expect.any(Number) },
    ]);
    // Times are real clock readings in nanoseconds: a child inside its parent, events inside their span.
    for (const span of spans) {
      expect(span.startMs, span.name).toBeGreaterThan(Date.now() - 60_000);
      expect(span.endMs, span.name).toBeGreaterThanOrEqual(span.startMs);
      const parent = spans.find((s) => s.spanId === span.parentSpanId);
      if (parent) expect(span.startMs, span.name).toBeGreaterThanOrEqual(parent.startMs);
    }
    expect(triage.events[0].timeMs).toBeGreaterThanOrEqual(triage.startMs);
    expect(triage.events[0].timeMs).toBeLessThanOrEqual(triage.endMs);

    const chats = spans.filter((s) => s.name === 'chat script');
    expect(chats.map((s) => s.kind)).toEqual([3, 3, 3, 3]);
    const first = chats.find(
      (s) => s.parentSpanId === triage.spanId && s.attributes['gen_ai.usage.input_tokens'] === 20,
    )!;
    expect(first.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'offline',
      'gen_ai.request.model': 'script',
      'gen_ai.response.model': 'script',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.usage.cache_read.input_tokens': 0,
    });

    const lookup = byName(spans, 'execute_tool lookup_invoice');
    expect(lookup.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_invoice',
      'gen_ai.tool.call.id': 'call_lookup',
      'gen_ai.tool.type': 'function',
    });
    expect(lookup.status.code).toBe(0);

    // The transfer target sits under the agent that handed over; its calls under it.
    const billing = byName(spans, 'invoke_agent billing');
    expect(childrenOf(spans, billing).sort()).toEqual([
      'chat script',
      'chat script',
      'execute_tool broken_tool',
      'execute_tool summarizer',
    ]);
    const answer = chats.find(
      (s) => s.parentSpanId === billing.spanId && s.attributes['gen_ai.usage.output_tokens'] === 9,
    )!;
    // Cached input counts inside the input tokens, as the conventions define them.
    expect(answer.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 75,
      'gen_ai.usage.cache_read.input_tokens': 30,
      'gen_ai.usage.cache_creation.input_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop'],
    });

    const broken = byName(spans, 'execute_tool broken_tool');
    expect(broken.status.code).toBe(2);
    expect(broken.attributes['error.type']).toBe('TOOL_EXECUTION_ERROR');

    // An agent tool's child invocation runs under the tool call that started it.
    const asTool = byName(spans, 'execute_tool summarizer');
    const child = byName(spans, 'invocation summarizer');
    expect(child.parentSpanId).toBe(asTool.spanId);
    expect(child.attributes['gen_ai.conversation.id']).not.toBe(
      invocation.attributes['gen_ai.conversation.id'],
    );
    const summarizer = byName(spans, 'invoke_agent summarizer');
    expect(summarizer.parentSpanId).toBe(child.spanId);
    expect(childrenOf(spans, summarizer)).toEqual(['chat echo']);

    // Without the opt-in, no prompt, answer, argument or result is recorded.
    const content = [
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.system_instructions',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ];
    for (const span of spans) for (const key of content) expect(span.attributes).not.toHaveProperty(key);
    expect(JSON.stringify(spans)).not.toContain('where is my invoice');
  });

  it('records prompts, answers, tool arguments and results only when opted in, with secrets scrubbed (OTLP/JSON)', async () => {
    const { code, stderr, receiver } = await tracedRun(
      ['triage', `where is my invoice? my key is ${SECRET}`],
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
    );
    expect(code, stderr).toBe(0);
    expect(receiver.requests.every((r) => r.contentType === 'application/json')).toBe(true);
    const spans = receiver.spans;
    expect(JSON.stringify(spans)).not.toContain(SECRET);
    const triage = byName(spans, 'invoke_agent triage');
    const chats = spans.filter((s) => s.name === 'chat script' && s.parentSpanId === triage.spanId);
    const first = chats.find((s) => s.attributes['gen_ai.usage.input_tokens'] === 20)!;
    expect(JSON.parse(first.attributes['gen_ai.system_instructions'] as string)).toEqual([
      { type: 'text', content: 'Route billing questions to billing.' },
    ]);
    expect(JSON.parse(first.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'where is my invoice? my key is ***' }] },
    ]);
    expect(JSON.parse(first.attributes['gen_ai.output.messages'] as string)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_lookup', name: 'lookup_invoice', arguments: { customer: 'acme' } },
        ],
        finish_reason: 'tool_calls',
      },
    ]);
    const lookup = byName(spans, 'execute_tool lookup_invoice');
    expect(JSON.parse(lookup.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
      customer: 'acme',
    });
    expect(lookup.attributes['gen_ai.tool.call.result']).toContain('invoice 42 for acme');
    const billing = byName(spans, 'invoke_agent billing');
    const answer = spans.find(
      (s) => s.parentSpanId === billing.spanId && s.attributes['gen_ai.usage.output_tokens'] === 9,
    )!;
    expect(JSON.parse(answer.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Invoice 42 is paid.' }], finish_reason: 'stop' },
    ]);
    const sentToBilling = JSON.parse(answer.attributes['gen_ai.input.messages'] as string) as Array<{
      role: string;
      parts: Array<{ type: string }>;
    }>;
    expect(sentToBilling.at(-1)).toMatchObject({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: 'call_broken' }],
    });
  });

  it('scrubs a secret that JSON would escape (a quote, a backslash) from the recorded content', async () => {
    const secret = 'pa"ss\\word-77';
    const { code, stderr, receiver } = await tracedRun(
      ['triage', `where is my invoice? my key is ${secret}`],
      {
        TRACE_SECRET: secret,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
    );
    expect(code, stderr).toBe(0);
    const triage = byName(receiver.spans, 'invoke_agent triage');
    const first = receiver.spans.find(
      (s) => s.parentSpanId === triage.spanId && s.attributes['gen_ai.usage.input_tokens'] === 20,
    )!;
    expect(JSON.parse(first.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'where is my invoice? my key is ***' }] },
    ]);
    expect(JSON.stringify(receiver.spans)).not.toContain('word-77');
  });

  it('--trace-content on the command line turns tracing and content on together', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { code, stderr } = await agentctl(['run', 'research', 'hello there', '--trace-content'], {
        cwd: project,
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces` },
      });
      expect(code, stderr).toBe(0);
      const chat = byName(receiver.spans, 'chat echo');
      expect(chat.attributes['gen_ai.input.messages']).toContain('hello there');
    } finally {
      await receiver.close();
    }
  });

  it('a workflow agent is an invoke_workflow span over its steps', async () => {
    const { code, stderr, receiver } = await tracedRun(['report', 'write about otters']);
    expect(code, stderr).toBe(0);
    const spans = receiver.spans;
    const report = byName(spans, 'invoke_workflow report');
    expect(report.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.agent.name': 'report',
      'agentctl.agent.type': 'sequential',
    });
    expect(report.parentSpanId).toBe(byName(spans, 'invocation report').spanId);
    expect(childrenOf(spans, report)).toEqual(['invoke_agent research', 'invoke_agent write']);
    expect(childrenOf(spans, byName(spans, 'invoke_agent write'))).toEqual(['chat echo']);
  });

  it('a failed run marks the model call, the agent and the invocation as errors, and still exports them', async () => {
    const { code, receiver } = await tracedRun(['failing', 'hi']);
    expect(code).toBe(1);
    const spans = receiver.spans;
    const chat = byName(spans, 'chat script');
    expect(chat.status.code).toBe(2);
    expect(chat.attributes['error.type']).toBe('MODEL_ERROR');
    for (const name of ['invoke_agent failing', 'invocation failing']) {
      const span = byName(spans, name);
      expect(span.status.code, name).toBe(2);
      expect(span.attributes['error.type'], name).toBe('MODEL_ERROR');
    }
    expect(byName(spans, 'invocation failing').attributes['agentctl.run.status']).toBe('error');
  });

  it("an error's message is content: left out of the spans unless opted in, where it is the status message", async () => {
    // The parse error of an answer that is not JSON quotes the answer.
    const plain = await tracedRun(['strict', 'tell me about the customer']);
    expect(plain.code).toBe(1);
    const invocation = byName(plain.receiver.spans, 'invocation strict');
    expect(invocation.status.code).toBe(2);
    expect(invocation.attributes['error.type']).toBe('OUTPUT_PARSE_ERROR');
    expect(JSON.stringify(plain.receiver.spans)).not.toContain('Private');
    const failing = await tracedRun(['failing', 'hi'], {
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    expect(byName(failing.receiver.spans, 'chat script').status).toMatchObject({
      code: 2,
      message: expect.stringContaining('upstream down'),
    });
  });

  it('a collector that cannot be reached is reported on stderr and leaves the run and its exit code alone', async () => {
    const gone = await startOtlpReceiver();
    await gone.close();
    const { code, stdout, stderr } = await agentctl(['run', 'research', 'still here', '--json'], {
      cwd: project,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: gone.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' },
    });
    expect(code, stderr).toBe(0);
    expect(parseNdjson(stdout).at(-1)).toMatchObject({ type: 'run_end', status: 'complete' });
    expect(stderr).toMatch(/agentctl: traces were not exported: .*ECONNREFUSED/);
    expect(stderr).not.toContain('internal error');
  });

  it('an OTLP protocol agentctl cannot speak is a usage error', async () => {
    const { code, stderr, receiver } = await tracedRun(['research', 'hi'], {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(code).toBe(2);
    expect(stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
    expect(receiver.requests).toEqual([]);
  });

  it('a sampler or a sampler ratio agentctl cannot read is a usage error, not a silent sample-everything', async () => {
    for (const [env, said] of [
      [
        { OTEL_TRACES_SAMPLER: 'traceidratio_typo' },
        'OTEL_TRACES_SAMPLER=traceidratio_typo is not a sampler',
      ],
      [
        { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' },
        'OTEL_TRACES_SAMPLER_ARG=10% is not a ratio',
      ],
    ] as const) {
      const { code, stderr, receiver } = await tracedRun(['research', 'hi'], env);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(said);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(receiver.requests).toEqual([]);
    }
  });

  it('an exporter timeout that is not a number of milliseconds is a usage error, not a silent 10 s', async () => {
    for (const [variable, value] of [
      ['OTEL_EXPORTER_OTLP_TIMEOUT', '2s'],
      ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', '0'],
    ]) {
      const { code, stderr, receiver } = await tracedRun(['research', 'hi'], { [variable]: value });
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(`agentctl: ${variable}=${value} is not a number of milliseconds above 0`);
      expect(receiver.requests).toEqual([]);
    }
  });

  it('an OTLP endpoint that is not an http(s) URL is a usage error naming the variable', async () => {
    for (const [variable, value] of [
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'not a url'],
    ]) {
      const { code, stdout, stderr } = await agentctl(['run', 'research', 'hi'], {
        cwd: project,
        env: { [variable]: value },
      });
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(`agentctl: ${variable}=${value} is not an http(s) URL`);
      expect(stdout).toBe('');
    }
  });
});

describe('spans are flushed before the process ends', () => {
  it('Ctrl-C during a tool call ends the run and still exports its spans, the tool left unfinished', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const child = spawn(process.execPath, [BIN, 'run', 'slow', 'take a nap', '--json'], {
        cwd: project,
        env: cliEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      let stdout = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no tool call; stdout: ${stdout}`)), 30_000);
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.includes('"type":"tool_call"')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGINT');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      expect(await exited).toBe(130);
      clearTimeout(killer);
      const spans = receiver.spans;
      const invocation = byName(spans, 'invocation slow');
      expect(invocation.status.code).toBe(2);
      expect(invocation.attributes['error.type']).toBe('ABORTED');
      const nap = byName(spans, 'execute_tool nap');
      expect(nap.attributes).toMatchObject({ 'agentctl.run.status': 'unfinished', 'error.type': 'ABORTED' });
      expect(nap.status.code).toBe(2);
      expect(nap.parentSpanId).toBe(byName(spans, 'invoke_agent slow').spanId);
    } finally {
      await receiver.close();
    }
  });

  it('agentctl dev --trace-content traces each message, content scrubbed of the project secrets', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { code, stderr } = await agentctl(['dev', 'triage', '--trace-content'], {
        cwd: project,
        input: `hello dev, my key is ${SECRET}\n`,
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`, TRACE_SECRET: SECRET },
      });
      expect(code, stderr).toBe(0);
      const spans = receiver.spans;
      const triage = byName(spans, 'invoke_agent triage');
      const first = spans.find(
        (s) => s.parentSpanId === triage.spanId && s.attributes['gen_ai.usage.input_tokens'] === 20,
      )!;
      expect(first.attributes['gen_ai.input.messages']).toContain('hello dev, my key is ***');
      expect(byName(spans, 'invoke_agent billing').parentSpanId).toBe(triage.spanId);
      expect(JSON.stringify(spans)).not.toContain(SECRET);
    } finally {
      await receiver.close();
    }
  });

  it('agentctl serve --trace exports the runs it served, flushed when it stops', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const server = await startServe(project, ['--trace'], {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
      });
      const response = await fetch(`${server.url}/agents/report/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'served otters', stream: false }),
      });
      expect(response.status).toBe(200);
      expect(await server.stop('SIGTERM')).toBe(0);
      const spans = receiver.spans;
      const report = byName(spans, 'invoke_workflow report');
      expect(report.parentSpanId).toBe(byName(spans, 'invocation report').spanId);
      expect(childrenOf(spans, report)).toEqual(['invoke_agent research', 'invoke_agent write']);
    } finally {
      await receiver.close();
    }
  });
});

describe('tracing off', () => {
  // A loader hook in the child process writes every module it resolves from @opentelemetry.
  async function loadedOtel(env: Record<string, string | undefined>): Promise<string[]> {
    const dir = await tempDir('agentctl-trace-hook-');
    const log = join(dir, 'loaded.txt');
    await writeFile(log, '');
    const hooks = join(dir, 'hooks.mjs');
    await writeFile(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.includes('@opentelemetry')) appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`,
    );
    const register = join(dir, 'register.mjs');
    await writeFile(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const { code, stderr } = await agentctl(['run', 'research', 'hi'], {
      cwd: project,
      env: { NODE_OPTIONS: `--import ${pathToFileURL(register).href}`, ...env },
    });
    expect(code, stderr).toBe(0);
    return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  }

  it('without an endpoint or --trace, no OpenTelemetry module is loaded', async () => {
    const receiver = await startOtlpReceiver();
    try {
      expect(
        await loadedOtel({
          OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
        }),
      ).toEqual([]);
      // The same hook sees them when tracing is on, so the empty list above means something.
      const on = await loadedOtel({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      expect(on.some((url) => url.includes('sdk-trace-base'))).toBe(true);
      expect(receiver.spans.map((s) => s.name)).toContain('invoke_agent research');
    } finally {
      await receiver.close();
    }
  });

  it('OTEL_TRACES_SAMPLER samples invocations out: traceidratio 0 sends no span, always_on sends them (as OTEL_SERVICE_NAME)', async () => {
    const out = await tracedRun(['research', 'hi'], {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    expect(out.code).toBe(0);
    expect(out.receiver.spans).toEqual([]);
    const kept = await tracedRun(['research', 'hi'], {
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_SERVICE_NAME: 'support-desk',
    });
    expect(kept.receiver.spans.map((s) => s.name)).toContain('invoke_agent research');
    for (const span of kept.receiver.spans) expect(span.resource['service.name']).toBe('support-desk');
  });

  it('OTEL_SDK_DISABLED=true keeps tracing off even with an endpoint: nothing is sent', async () => {
    const { code, receiver } = await tracedRun(['research', 'hi'], { OTEL_SDK_DISABLED: 'true' });
    expect(code).toBe(0);
    expect(receiver.requests).toEqual([]);
  });
});
