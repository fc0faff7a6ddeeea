import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  AgentError,
  compose,
  createAgent,
  defineTool,
  logging,
  type Middleware,
  redaction,
  redactor,
  retry,
  timeout,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { add, sleeper } from './support/tools.js';

describe('middleware', () => {
  it('runs in onion order around every action type', async () => {
    const trail: string[] = [];
    const outer: Middleware = async (action, next) => {
      trail.push(`outer>${action.type}`);
      const out = await next();
      trail.push(`outer<${action.type}`);
      return out;
    };
    const inner: Middleware = async (action, next) => {
      trail.push(`inner>${action.type}`);
      return next();
    };
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'ok' },
    ]);
    await createAgent({ name: 'a', provider: model, tools: [add], middleware: [outer, inner] }).run('x');
    expect(trail.slice(0, 6)).toEqual([
      'outer>loop_start',
      'inner>loop_start',
      'outer<loop_start',
      'outer>model_call',
      'inner>model_call',
      'outer<model_call',
    ]);
    const types = new Set(trail.map((t) => t.split(/[<>]/)[1]));
    expect([...types]).toEqual([
      'loop_start',
      'model_call',
      'model_response',
      'tool_call',
      'tool_result',
      'loop_end',
    ]);
  });

  it('can rewrite a tool result before the model sees it', async () => {
    const rewrite: Middleware = async (_action, next) => {
      const out = await next();
      if (out.type !== 'tool_result') return out;
      return {
        ...out,
        payload: {
          ...out.payload,
          result: { ...out.payload.result, content: `checked: ${out.payload.result.content}` },
        },
      };
    };
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      { text: 'ok' },
    ]);
    await createAgent({ name: 'a', provider: model, tools: [add], middleware: [rewrite] }).run('x');
    expect(model.requests[1].messages.at(-1)?.content).toBe('checked: 4');
  });

  it('can short-circuit a model call (a cache answering in place of the model)', async () => {
    const cache: Middleware = async (action, next) => {
      if (action.type !== 'model_call') return next();
      return {
        ...action,
        payload: {
          ...action.payload,
          response: { content: 'from cache', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } },
        },
      };
    };
    const model = scriptedModel([]);
    const result = await createAgent({ name: 'a', provider: model, middleware: [cache] }).run('x');
    expect(result.output).toBe('from cache');
    expect(model.requests).toHaveLength(0);
  });

  it('can short-circuit a tool call', async () => {
    const stub: Middleware = async (action, next) =>
      action.type === 'tool_call'
        ? {
            ...action,
            payload: { ...action.payload, result: { content: 'stubbed', isError: false, duration: 0 } },
          }
        : next();
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      { text: 'ok' },
    ]);
    const result = await createAgent({ name: 'a', provider: model, tools: [add], middleware: [stub] }).run(
      'x',
    );
    expect(model.requests[1].messages.at(-1)?.content).toBe('stubbed');
    expect(result.toolCalls[0].isError).toBe(false);
  });

  it('compose rejects a second next() after success, and while one is running', async () => {
    const twice: Middleware = async (_action, next) => {
      await next();
      return next();
    };
    const action = {
      type: 'loop_start',
      agent: 'a',
      payload: { prompt: '' },
      timestamp: 0,
      metadata: {},
    } as AgentAction;
    await expect(compose([twice])(action, async (a) => a)).rejects.toThrow(
      /next\(\) again after it succeeded/,
    );
    const parallel: Middleware = async (_action, next) => {
      await Promise.all([next(), next()]);
      return _action;
    };
    await expect(compose([parallel])(action, async (a) => a)).rejects.toThrow(/twice at once/);
  });

  it('retry repeats a retryable model error and passes others through', async () => {
    const model = scriptedModel([
      { error: { message: 'overloaded', retryable: true } },
      { error: { message: 'overloaded', retryable: true } },
      { text: 'finally' },
    ]);
    const result = await createAgent({
      name: 'a',
      provider: model,
      middleware: [retry({ maxAttempts: 3, initialDelay: 1 })],
    }).run('x');
    expect(result.output).toBe('finally');
    const bad = scriptedModel([{ error: { message: 'bad request', retryable: false } }, { text: 'never' }]);
    await expect(
      createAgent({ name: 'a', provider: bad, middleware: [retry({ initialDelay: 1 })] }).run('x'),
    ).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: 'bad request',
    });
    expect(bad.remaining).toEqual([1]);
  });

  it('retry on tool_call runs a tool again after a failure a retry could fix, and only then', async () => {
    // A tool that fails its first `failures` calls with `error`, then answers.
    const flaky = (failures: number, error: () => Error) => {
      const tool = defineTool<Record<string, never>>({
        name: 'flaky',
        description: 'fails, then works',
        parameters: { type: 'object', properties: {} },
        execute: async () => {
          tool.calls++;
          if (tool.calls <= failures) throw error();
          return 'worked';
        },
      }) as ReturnType<typeof defineTool> & { calls: number };
      tool.calls = 0;
      return tool;
    };
    const run = async (tool: ReturnType<typeof flaky>, on?: Array<'model_call' | 'tool_call'>) => {
      const result = await createAgent({
        name: 'a',
        provider: scriptedModel([{ toolCalls: [{ name: 'flaky', arguments: {} }] }, { text: 'done' }]),
        tools: [tool],
        middleware: [retry({ on, maxAttempts: 3, initialDelay: 1 })],
      }).run('go');
      expect(result.output).toBe('done');
      return { calls: tool.calls, result: result.toolCalls[0] };
    };
    const busy = () => new AgentError('busy', 'TOOL_EXECUTION_ERROR', { retryable: true });
    const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

    expect(await run(flaky(1, busy), ['tool_call'])).toMatchObject({
      calls: 2,
      result: { isError: false, result: 'worked' },
    });
    expect(await run(flaky(2, reset), ['tool_call'])).toMatchObject({ calls: 3, result: { isError: false } });
    // Attempts spent: the last failure is the model's error result, and the run goes on.
    expect(await run(flaky(5, busy), ['tool_call'])).toMatchObject({
      calls: 3,
      result: { isError: true, result: 'Tool flaky failed: busy' },
    });
    // A failure no retry can fix runs once; so does every tool call when retry is on model calls only.
    expect(
      await run(
        flaky(1, () => new Error('bad input')),
        ['tool_call'],
      ),
    ).toMatchObject({
      calls: 1,
      result: { isError: true, result: 'Tool flaky failed: bad input' },
    });
    expect(await run(flaky(1, busy))).toMatchObject({ calls: 1, result: { isError: true } });
  });

  it('timeout fails a slow tool call and aborts it', async () => {
    const log: string[] = [];
    const model = scriptedModel([{ toolCalls: [{ name: 'slow' }] }, { text: 'ok' }]);
    const result = await createAgent({
      name: 'a',
      provider: model,
      tools: [sleeper('slow', 5_000, log)],
      middleware: [timeout({ tool: 30 })],
    }).run('x');
    expect(log).toEqual(['start slow', 'abort slow']);
    expect(result.toolCalls[0]).toMatchObject({ isError: true });
    expect(String(result.toolCalls[0].result)).toContain('timed out after 30 ms');
  });

  it('never keeps a run from being cancelled by never settling', async () => {
    const never = (type: AgentAction['type']): Middleware =>
      function stuck(action, next) {
        return action.type === type ? new Promise(() => undefined) : next();
      };
    for (const type of ['loop_start', 'model_call', 'model_response'] as const) {
      const controller = new AbortController();
      const run = createAgent({
        name: 'a',
        provider: scriptedModel([{ text: 'ok' }]),
        middleware: [never(type)],
      }).run('x', { signal: controller.signal });
      setTimeout(() => controller.abort(), 10);
      await expect(run, type).rejects.toMatchObject({ code: 'ABORTED' });
    }
    const controller = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'ok' },
    ]);
    const run = createAgent({
      name: 'b',
      provider: model,
      tools: [add],
      middleware: [never('tool_call')],
    }).run('x', { signal: controller.signal, onToolCall: () => setTimeout(() => controller.abort(), 10) });
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('never keeps a run cancelled before an action was sent from ending (Ctrl-C right at the start)', async () => {
    const seen: string[] = [];
    const stuck: Middleware = function stuck(action) {
      seen.push(action.type);
      return action.type === 'loop_start' ? new Promise(() => undefined) : Promise.resolve(action);
    };
    const controller = new AbortController();
    const run = createAgent({
      name: 'a',
      provider: scriptedModel([{ text: 'ok' }]),
      middleware: [stuck],
    }).run('x', {
      signal: controller.signal,
      // Cancelled as the agent starts: its loop_start is sent on a signal aborted already.
      onEvent: (event) => {
        if (event.type === 'agent_start') controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen).toEqual(['loop_start']);
  });

  it('sees a tool that times out once, through one error action', async () => {
    const seen: string[] = [];
    const spy: Middleware = async function spy(action, next) {
      seen.push(action.type);
      return next();
    };
    const model = scriptedModel([{ toolCalls: [{ name: 'slow' }] }, { text: 'ok' }]);
    const result = await createAgent({
      name: 'a',
      provider: model,
      tools: [{ ...sleeper('slow', 5_000, []), timeout: 30 }],
      middleware: [spy],
    }).run('x');
    expect(seen.filter((type) => type === 'error')).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ isError: true, result: 'tool slow timed out after 30 ms' });
  });

  it('logging writes one line per action', async () => {
    const lines: string[] = [];
    const model = scriptedModel([{ text: 'ok' }]);
    await createAgent({
      name: 'a',
      provider: model,
      middleware: [logging({ log: (l) => lines.push(l) })],
    }).run('hello');
    expect(lines.map((l) => l.split(' ')[1])).toEqual([
      'loop_start',
      'model_call',
      'model_response',
      'loop_end',
    ]);
    expect(lines[0]).toMatch(/^\[a\] loop_start "hello" \(\d+ ms\)$/);
  });

  it('logging with a redactor shows nothing it replaces, wherever the redaction stands', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'mail bob@example.com' },
    ]);
    const secretResult: Middleware = async (_action, next) => {
      const out = await next();
      if (out.type !== 'tool_call' || !out.payload.result) return out;
      return {
        ...out,
        payload: { ...out.payload, result: { ...out.payload.result, content: 'ACME-123456' } },
      };
    };
    const verbose: string[] = [];
    const brief: string[] = [];
    const redact = redactor({ patterns: [/ACME-\d{6}/g] });
    // The prompt's address straddles the 80th character the brief summary keeps.
    const prompt = `${'x'.repeat(70)} ada@example.com card 4111 1111 1111 1111`;
    await createAgent({
      name: 'a',
      provider: model,
      tools: [add],
      middleware: [
        logging({ log: (l) => verbose.push(l), verbose: true, redact }),
        logging({ log: (l) => brief.push(l), redact }),
        redaction({ patterns: [/ACME-\d{6}/g] }),
        secretResult,
      ],
    }).run(prompt);
    const all = [...verbose, ...brief].join('\n');
    expect(all).toContain('[REDACTED]');
    for (const secret of ['example.com', 'ada@', '4111', 'ACME-1']) expect(all).not.toContain(secret);
    expect(brief[0]).toMatch(/^\[a\] loop_start "x{70} \[REDACTED"/);
    const failed: string[] = [];
    await expect(
      createAgent({
        name: 'a',
        provider: scriptedModel([{ error: 'no account for ada@example.com' }]),
        middleware: [logging({ log: (l) => failed.push(l), redact })],
      }).run('x'),
    ).rejects.toBeInstanceOf(AgentError);
    expect(failed.join('\n')).toContain('no account for [REDACTED]');
  });

  it('redaction hides personal data from the model and from tool results', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'mail bob@example.com' },
    ]);
    const leaky: Middleware = async (_action, next) => {
      const out = await next();
      return out.type === 'tool_result'
        ? {
            ...out,
            payload: {
              ...out.payload,
              result: { ...out.payload.result, content: 'card 4111 1111 1111 1111' },
            },
          }
        : out;
    };
    const result = await createAgent({
      name: 'a',
      provider: model,
      tools: [add],
      middleware: [redaction(), leaky],
    }).run('I am ada@example.com, SSN 123-45-6789');
    expect(model.requests[0].messages[0].content).toBe('I am [REDACTED], SSN [REDACTED]');
    expect(model.requests[1].messages.at(-1)?.content).toBe('card [REDACTED]');
    expect(result.output).toBe('mail [REDACTED]');
  });

  it("redaction records the model's tool-call arguments redacted and sends them back so, while the tool gets them as made", async () => {
    const received: unknown[] = [];
    const note = defineTool({
      name: 'note',
      description: 'Notes a text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: ({ text }: { text: string }) => {
        received.push(text);
        return 'noted';
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'note', arguments: { text: 'mail bob@example.com' } }] },
      { text: 'done' },
    ]);
    const events: Array<{ type: string; call?: unknown; message?: { toolCalls?: unknown } }> = [];
    const agent = createAgent({ name: 'a', provider: model, tools: [note], middleware: [redaction()] });
    for await (const event of agent.run('x') as AsyncIterable<(typeof events)[number]>) events.push(event);
    expect(received).toEqual(['mail bob@example.com']);
    const recorded = {
      id: 'c1',
      name: 'note',
      arguments: { text: 'mail [REDACTED]' },
      argumentsRedacted: true,
    };
    expect(events.find((e) => e.type === 'tool_call')?.call).toEqual(recorded);
    expect(events.find((e) => e.type === 'message' && e.message?.toolCalls)?.message?.toolCalls).toEqual([
      recorded,
    ]);
    expect(model.requests[1].messages[1].toolCalls?.[0].arguments).toEqual({ text: 'mail [REDACTED]' });
    expect(JSON.stringify(events)).not.toContain('bob@example.com');
  });

  it('redaction holds back the streamed answer and shows it redacted; other middleware still stream', async () => {
    const answer = 'write to bob@example.com or call 555-123-4567 today';
    const shown = async (middleware: Middleware[]) => {
      const deltas: string[] = [];
      const tokens: string[] = [];
      const agent = createAgent({ name: 'a', provider: scriptedModel([{ text: answer }]), middleware });
      for await (const event of agent.run('x', { onToken: (t) => tokens.push(t) }) as AsyncIterable<{
        type: string;
        text?: string;
      }>)
        if (event.type === 'text_delta') deltas.push(event.text ?? '');
      return { deltas, tokens };
    };
    const redacted = await shown([logging({ log: () => undefined }), redaction()]);
    expect(redacted.deltas).toEqual(['write to [REDACTED] or call [REDACTED] today']);
    expect(redacted.tokens).toEqual(redacted.deltas);
    const logged = await shown([logging({ log: () => undefined })]);
    expect(logged.deltas.length).toBeGreaterThan(1);
    expect(logged.deltas.join('')).toBe(answer);
  });

  it('sees model errors through the error action', async () => {
    const seen: string[] = [];
    const watch: Middleware = async (action, next) => {
      if (action.type === 'error') seen.push(`${action.payload.source}:${action.payload.error.code}`);
      return next();
    };
    const model = scriptedModel([{ error: 'boom' }]);
    await expect(
      createAgent({ name: 'a', provider: model, middleware: [watch] }).run('x'),
    ).rejects.toBeInstanceOf(AgentError);
    expect(seen).toEqual(['model:PROVIDER_ERROR']);
  });
});
