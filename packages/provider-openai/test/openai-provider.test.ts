import type { StreamEvent } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { type SseEvent, sse } from '../../../test/support/fake-server.js';
import { events, lastError } from '../../../test/support/stream-events.js';
import { wireHarness } from '../../../test/support/wire-harness.js';
import { createOpenAIProvider } from '../src/index.js';
import { openaiError, openaiText, openaiToolCalls } from './support/openai-wire.js';

const KEY = 'sk-test-secret-key-0123456789';
const { setup, ask } = wireHarness({
  apiKey: KEY,
  basePath: '/v1',
  model: 'gpt-test',
  create: createOpenAIProvider,
});

describe('openai provider on the wire', () => {
  it('streams an answer token by token and sends a well-formed request', async () => {
    const { server, provider } = await setup([sse(openaiText('Hello there, world!', { size: 3 }))]);
    const list = await events(
      provider.stream(ask('hi', { system: 'Be kind.', temperature: 0.2, topP: 0.9, maxOutputTokens: 50 })),
    );
    const tokens = list.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join('')).toBe('Hello there, world!');
    const done = list.at(-1);
    expect(done).toMatchObject({
      type: 'done',
      response: { content: 'Hello there, world!', finishReason: 'stop', model: 'gpt-fake' },
    });
    expect(list.filter((e) => e.type === 'done')).toHaveLength(1);
    const request = server.requests[0];
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 50,
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('assembles parallel tool calls from interleaved fragments', async () => {
    const calls = [
      { id: 'call_a', name: 'weather', arguments: { city: 'Oslo', unit: 'celsius', days: 3 } },
      { id: 'call_b', name: 'news', arguments: { topic: 'sailing', limit: 5 } },
    ];
    const wire = openaiToolCalls(calls, { size: 2 });
    const { provider } = await setup([sse(wire)]);
    const list = await events(provider.stream(ask('plan my trip')));
    const deltas = list.filter((e) => e.type === 'tool_call_delta') as Array<{
      id: string;
      argumentsDelta: string;
    }>;
    expect(deltas.length).toBeGreaterThan(10);
    // Fragments alternate between the calls, as they came.
    expect(deltas[0].id).toBe('call_a');
    expect(deltas[1].id).toBe('call_b');
    expect(
      JSON.parse(
        deltas
          .filter((d) => d.id === 'call_a')
          .map((d) => d.argumentsDelta)
          .join(''),
      ),
    ).toEqual(calls[0].arguments);
    expect(list.filter((e) => e.type === 'tool_call_start').map((e) => (e as { name: string }).name)).toEqual(
      ['weather', 'news'],
    );
    const done = list.at(-1) as Extract<StreamEvent, { type: 'done' }>;
    expect(done.response.toolCalls).toEqual(calls);
    expect(done.response.finishReason).toBe('tool_calls');
    expect(done.response.content).toBeNull();
  });

  it('tolerates servers that leave out tool call ids, usage and the right finish reason', async () => {
    const wire = openaiToolCalls([{ name: 'lookup', arguments: { q: 'x' } }], {
      usage: null,
      finish: 'stop',
    });
    const { provider } = await setup([sse(wire)]);
    const response = await provider.chat(ask('find x'));
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0].id).toMatch(/^call_/);
    expect(response.toolCalls[0]).toMatchObject({ name: 'lookup', arguments: { q: 'x' } });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.usage.inputTokens).toBe(0);
    expect(response.usage.outputTokens).toBeGreaterThan(0);
  });

  it('reads past events of odd shapes: null, a number, null choices and tool calls, arguments as an object', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'c',
      object: 'chat.completion.chunk',
      model: 'gpt-fake',
      choices: [null, { index: 0, delta, finish_reason: finish }],
    });
    const wire: SseEvent[] = [
      { data: chunk({ role: 'assistant', content: 'Looking' }) },
      { data: 'null' },
      { data: '42' },
      { data: { id: 'c', choices: [null] } },
      {
        data: chunk({
          tool_calls: [
            null,
            { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: { q: 'x' } } },
          ],
        }),
      },
      { data: chunk({}, 'tool_calls') },
      { data: '[DONE]' },
    ];
    const { provider } = await setup([sse(wire)]);
    const response = await provider.chat(ask('find x'));
    expect(response.content).toBe('Looking');
    expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'lookup', arguments: { q: 'x' } }]);
  });

  it('asks again when an answer ends with nothing said for a reason that is no normal end, and keeps one that said something', async () => {
    const { server, provider } = await setup([
      sse(openaiText('', { finish: 'error' })),
      sse(openaiText('second try')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('second try');
    expect(server.requests).toHaveLength(2);

    const once = await setup([sse(openaiText('', { finish: 'error' }))], { retry: { maxAttempts: 1 } });
    const error = lastError(await events(once.provider.stream(ask('hi'))));
    expect(error).toMatchObject({ code: 'MODEL_ERROR', retryable: true });
    expect(error.message).toBe('openai model gpt-test stopped with error, the model gave no answer');

    const said = await setup([sse(openaiText('Partial.', { finish: 'abort' }))]);
    expect(await said.provider.chat(ask('hi'))).toMatchObject({ content: 'Partial.', finishReason: 'other' });
    expect(said.server.requests).toHaveLength(1);
  });

  it('streams a refusal as the answer, marked as stopped by the provider', async () => {
    // A refusal arrives in `delta.refusal`, with `content` null and a plain `stop`.
    const wire = openaiText('', { usage: { prompt_tokens: 12, completion_tokens: 7 } });
    wire.splice(
      1,
      1,
      ...["I'm sorry, ", "I can't help with that."].map((refusal) => ({
        data: {
          ...(wire[0].data as object),
          choices: [{ index: 0, delta: { refusal }, finish_reason: null }],
        },
      })),
    );
    const { provider } = await setup([sse(wire)]);
    const list = await events(provider.stream(ask('something it refuses')));
    const tokens = list.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text);
    expect(tokens.join('')).toBe("I'm sorry, I can't help with that.");
    expect(list.at(-1)).toMatchObject({
      type: 'done',
      response: {
        content: "I'm sorry, I can't help with that.",
        finishReason: 'content_filter',
        toolCalls: [],
      },
    });
  });

  it('keeps apart parallel calls that all come at index 0 with their own ids (Ollama)', async () => {
    const wire = openaiText('', { usage: null });
    const head = wire[0].data as Record<string, unknown>;
    const at0 = (part: Record<string, unknown>) => ({
      data: {
        ...head,
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...part }] }, finish_reason: null }],
      },
    });
    wire.splice(
      1,
      1,
      at0({ id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":' } }),
      at0({ function: { arguments: '"Oslo"}' } }),
      at0({ id: 'call_b', type: 'function', function: { name: 'news', arguments: '{"topic":"sailing"}' } }),
      at0({ id: 'call_c', type: 'function', function: { name: 'weather', arguments: '{"city"' } }),
      at0({ id: 'call_c', function: { arguments: ':"Bergen"}' } }),
    );
    const { provider } = await setup([sse(wire)]);
    const response = await provider.chat(ask('plan my trip'));
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'weather', arguments: { city: 'Oslo' } },
      { id: 'call_b', name: 'news', arguments: { topic: 'sailing' } },
      { id: 'call_c', name: 'weather', arguments: { city: 'Bergen' } },
    ]);
    expect(response.finishReason).toBe('tool_calls');
  });

  it('says a tool call cut off by the output limit was cut short, not a whole call', async () => {
    const wire = openaiToolCalls([{ id: 'call_a', name: 'write', arguments: '{"text":"Once upon a ti' }], {
      finish: 'length',
    });
    const { provider } = await setup([sse(wire)]);
    const response = await provider.chat(ask('write a long story', { maxOutputTokens: 10 }));
    expect(response.finishReason).toBe('length');
    expect(response.toolCalls).toHaveLength(1);
  });

  it('reports usage with cached tokens in their own bucket', async () => {
    const wire = openaiText('ok', {
      usage: { prompt_tokens: 1200, completion_tokens: 7, cached_tokens: 1024 },
    });
    const { provider } = await setup([sse(wire)]);
    const response = await provider.chat(ask('hi'));
    expect(response.usage).toEqual({
      inputTokens: 176,
      outputTokens: 7,
      cacheReadTokens: 1024,
      cacheWriteTokens: 0,
    });
  });

  it('asks for structured output with a json_schema response format', async () => {
    const answer = JSON.stringify({ queue: 'billing' });
    const { server, provider } = await setup([sse(openaiText(answer))]);
    const schema = {
      type: 'object',
      properties: { queue: { enum: ['billing', 'tech'] } },
      required: ['queue'],
    };
    const response = await provider.chat(
      ask('route me', { responseFormat: { type: 'json_schema', schema } }),
    );
    expect(JSON.parse(response.content ?? '')).toEqual({ queue: 'billing' });
    expect(server.requests[0].body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema },
    });
  });

  it('sends every tool schema as an object with properties and no anyOf/oneOf/allOf at its root, as the API requires', async () => {
    const { server, provider } = await setup([sse(openaiText('ok'))]);
    await provider.chat(
      ask('look', {
        tools: [
          { name: 'find', description: 'Finds', parameters: { properties: { q: { type: 'string' } } } },
          { name: 'ping', description: 'Pings', parameters: { type: 'object' } },
          {
            name: 'edit',
            description: 'Edits',
            parameters: {
              type: 'object',
              properties: { id: { type: 'string' } },
              required: ['id'],
              allOf: [
                { properties: { text: { type: 'string' } }, required: ['text'] },
                { properties: { id: { type: 'string', description: 'the id' } } },
              ],
            },
          },
        ],
      }),
    );
    expect(server.requests[0].body.tools.map((t: { function: unknown }) => t.function)).toEqual([
      {
        name: 'find',
        description: 'Finds',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
      { name: 'ping', description: 'Pings', parameters: { type: 'object', properties: {} } },
      {
        name: 'edit',
        description: 'Edits',
        parameters: {
          type: 'object',
          properties: { id: { type: 'string' }, text: { type: 'string' } },
          required: ['id', 'text'],
        },
      },
    ]);
  });

  it('maps tools, tool results and images the way Chat Completions wants them', async () => {
    const { server, provider } = await setup([sse(openaiText('seen'))]);
    await provider.chat({
      model: 'gpt-test',
      tools: [
        { name: 'shot', description: 'Takes a screenshot', parameters: { type: 'object', properties: {} } },
      ],
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'shot', arguments: {} }] },
        {
          role: 'tool',
          toolCallId: 'c1',
          name: 'shot',
          content: 'screenshot taken',
          image: { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        },
      ],
    });
    const body = server.requests[0].body;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'shot',
          description: 'Takes a screenshot',
          parameters: { type: 'object', properties: {} },
        },
      },
    ]);
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
    });
    expect(body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'screenshot taken' });
    expect(body.messages[3].role).toBe('user');
    expect(body.messages[3].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' },
    });
  });
});

describe('openai provider failures', () => {
  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    const { server, provider } = await setup([
      openaiError(429, 'Rate limit reached', { 'retry-after': '1' }),
      sse(openaiText('finally')),
    ]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('finally');
    expect(server.requests).toHaveLength(2);
    const waited = server.requests[1].time - server.requests[0].time;
    console.log(`429 Retry-After: 1 -> retried after ${waited} ms`);
    expect(waited).toBeGreaterThanOrEqual(900);
  });

  it('retries a 500 three times, then succeeds', async () => {
    const { server, provider } = await setup([
      openaiError(500, 'boom'),
      openaiError(500, 'boom'),
      openaiError(500, 'boom'),
      sse(openaiText('recovered')),
    ]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('recovered');
    expect(server.requests).toHaveLength(4);
  });

  it('gives up after the last attempt with a retryable PROVIDER_ERROR', async () => {
    const { server, provider } = await setup(
      [openaiError(503, 'overloaded'), openaiError(503, 'overloaded')],
      { retry: { maxAttempts: 2, initialDelayMs: 1 } },
    );
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true, context: { status: 503 } });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401 and names the model, the status and the API message, never the key', async () => {
    const { server, provider } = await setup([openaiError(401, 'Incorrect API key provided.')]);
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('openai model gpt-test failed with HTTP 401: Incorrect API key provided.');
    expect(error.context).toMatchObject({ status: 401, model: 'gpt-test', provider: 'openai' });
    expect(JSON.stringify({ message: error.message, context: error.context })).not.toContain(KEY);
  });

  it('turns a stream cut after the first tokens into a MODEL_ERROR, without retrying', async () => {
    const { server, provider } = await setup([
      sse(openaiText('a long answer that will be cut', { size: 2 }), { cutAfter: 4 }),
    ]);
    const list = await events(provider.stream(ask('hi')));
    expect(list.some((e) => e.type === 'token')).toBe(true);
    expect(list.some((e) => e.type === 'done')).toBe(false);
    const error = lastError(list);
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('the stream broke after the answer had begun');
    expect(server.requests).toHaveLength(1);
    // Usage comes only in the last chunk: what arrived ("a long", about 2 tokens) is estimated, and said to be.
    expect(error.context.usage).toEqual({ inputTokens: 0, outputTokens: 2, unreported: true });
  });

  it('does not take a stream that ends early for a whole answer when usage comes on every chunk', async () => {
    // vLLM with `continuous_usage_stats` puts running totals on every chunk, choices included.
    const running = (events: SseEvent[]) =>
      events.map((event, n) =>
        typeof event.data === 'object' && event.data !== null && !('usage' in event.data)
          ? {
              data: { ...event.data, usage: { prompt_tokens: 9, completion_tokens: n, total_tokens: 9 + n } },
            }
          : event,
      );
    const whole = running(openaiText('an answer with running usage', { size: 5, usage: null }));
    const { provider } = await setup([sse(whole)]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('an answer with running usage');
    expect(response.usage).toMatchObject({ inputTokens: 9, outputTokens: whole.length - 2 });

    // The same answer, the connection closed cleanly after its third chunk: no finish reason came.
    const cut = await setup([sse(whole.slice(0, 3))], { retry: { maxAttempts: 1 } });
    const list = await events(cut.provider.stream(ask('hi')));
    expect(list.some((e) => e.type === 'done')).toBe(false);
    const error = lastError(list);
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('the stream ended before its last event');
  });

  it('retries a server_error sent inside the stream before any token', async () => {
    const streamError = (type: string, message: string) =>
      sse([{ data: { error: { message, type, param: null, code: null } } }]);
    const { server, provider } = await setup([
      streamError('server_error', 'The server had an error while processing your request.'),
      sse(openaiText('second time lucky')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('second time lucky');
    expect(server.requests).toHaveLength(2);
    const refused = await setup([streamError('invalid_request_error', 'Bad input.')]);
    const error = lastError(await events(refused.provider.stream(ask('hi'))));
    expect(refused.server.requests).toHaveLength(1);
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
  });

  it('says an answer that ended before its finish, with nothing said yet, was incomplete, not a failed connection', async () => {
    // Usage and the role chunk, then the server closes the stream cleanly: it answered, but not all.
    const wire = openaiText('x');
    const { server, provider } = await setup([sse(wire.slice(0, 1)), sse(wire.slice(0, 1))], {
      retry: { maxAttempts: 2, initialDelayMs: 1 },
    });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(server.requests).toHaveLength(2);
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
    expect(error.message).toBe(
      'openai model gpt-test: incomplete answer (the stream ended before its last event) (after 2 attempts)',
    );
  });

  it("reads vLLM's error event inside a stream ({ object: 'error' }), retrying a server-side one", async () => {
    const vllmError = (code: number, message: string) =>
      sse([{ data: { object: 'error', message, type: 'InternalServerError', param: null, code } }]);
    const { server, provider } = await setup([
      vllmError(500, 'CUDA out of memory'),
      sse(openaiText('recovered')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('recovered');
    expect(server.requests).toHaveLength(2);

    const refused = await setup([vllmError(400, 'This model has a maximum context length of 4096 tokens')]);
    const error = lastError(await events(refused.provider.stream(ask('hi'))));
    expect(refused.server.requests).toHaveLength(1);
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
    expect(error.message).toBe(
      'openai model gpt-test: request failed (This model has a maximum context length of 4096 tokens)',
    );

    // After part of the answer, the error is the stream's end, said as such.
    const late = await setup([
      sse([
        ...openaiText('partial answer').slice(0, 3),
        { data: { object: 'error', message: 'engine died', code: 500 } },
      ]),
    ]);
    const after = lastError(await events(late.provider.stream(ask('hi'))));
    expect(after.code).toBe('MODEL_ERROR');
    expect(after.message).toBe(
      'openai model gpt-test: the stream broke after the answer had begun (engine died)',
    );
  });

  it('retries a connection dropped before any token', async () => {
    const { server, provider } = await setup([
      sse(openaiText('x'), { cutAfter: 0 }),
      sse(openaiText('second try')),
    ]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('second try');
    expect(server.requests).toHaveLength(2);
  });

  it('times out on a server that never answers', async () => {
    const { server, provider } = await setup([{ hang: true }, { hang: true }], {
      timeout: 200,
      retry: { maxAttempts: 2, initialDelayMs: 1 },
    });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe(
      "openai model gpt-test: timed out, no data for 200 ms, the model's timeout (after 2 attempts)",
    );
    expect(server.requests).toHaveLength(2);
    await server.requests[0].closed;
    expect(server.requests[0].abortedByClient).toBe(true);
  });

  it('times out on a stream that stalls in the middle', async () => {
    const { provider } = await setup([sse(openaiText('stalling answer'), { hangAfter: 3 })], {
      timeout: 200,
    });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('no data for 200 ms');
  });

  it('timeout bounds the silence, not the call: a slow answer that keeps coming outlasts it', async () => {
    // 8 events 500 ms apart: 4 s in all against a 1.5 s timeout, never 1.5 s without data.
    const { provider } = await setup(
      [sse(openaiText('a slow but steady answer', { size: 6 }), { delayMs: 500 })],
      {
        timeout: 1500,
        retry: { maxAttempts: 1 },
      },
    );
    const all = await events(provider.stream(ask('hi')));
    expect(all.filter((e) => e.type === 'error')).toEqual([]);
    expect(all.at(-1)).toMatchObject({ type: 'done' });
  });

  it('aborts the HTTP request when the run is cancelled during streaming', async () => {
    const { server, provider } = await setup([
      sse(openaiText('slow answer '.repeat(40), { size: 3 }), { delayMs: 20 }),
    ]);
    const controller = new AbortController();
    const list: StreamEvent[] = [];
    for await (const event of provider.stream(ask('hi', { signal: controller.signal }))) {
      list.push(event);
      if (event.type === 'token' && list.length === 2) controller.abort();
    }
    await server.requests[0].closed;
    expect(server.requests[0].abortedByClient).toBe(true);
    expect(lastError(list).code).toBe('ABORTED');
    expect(server.requests).toHaveLength(1);
  });
});
