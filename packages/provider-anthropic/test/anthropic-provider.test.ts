import type { StreamEvent } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { events, lastError } from '../../../test/support/stream-events.js';
import { wireHarness } from '../../../test/support/wire-harness.js';
import { createAnthropicProvider } from '../src/index.js';
import { anthropicError, anthropicStream, anthropicText } from './support/anthropic-wire.js';

const KEY = 'sk-ant-test-secret-0123456789';
const { setup, ask } = wireHarness({
  apiKey: KEY,
  basePath: '',
  model: 'claude-test',
  create: createAnthropicProvider,
});

describe('anthropic provider on the wire', () => {
  it('streams an answer and sends the version header, a bearer key and no sampling fields', async () => {
    const { server, provider } = await setup([sse(anthropicText('Hello from Claude!', { size: 3 }))]);
    const list = await events(
      provider.stream(ask('hi', { system: 'Be kind.', temperature: 0.5, topP: 0.9 })),
    );
    const tokens = list.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join('')).toBe('Hello from Claude!');
    expect(list.at(-1)).toMatchObject({
      type: 'done',
      response: { content: 'Hello from Claude!', finishReason: 'stop', model: 'claude-fake' },
    });
    const request = server.requests[0];
    expect(request.url).toBe('/v1/messages');
    expect(request.headers['anthropic-version']).toBe('2026-10-21');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({
      model: 'claude-test',
      max_tokens: 4096,
      stream: true,
      system: 'Be kind.',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(request.body).not.toHaveProperty('temperature');
    expect(request.body).not.toHaveProperty('top_p');
    expect(request.body).not.toHaveProperty('top_k');
  });

  it('assembles parallel tool use from many input fragments', async () => {
    const calls = [
      {
        type: 'tool_use' as const,
        id: 'toolu_1',
        name: 'weather',
        input: { city: 'Oslo', days: 3, unit: 'celsius' },
      },
      { type: 'tool_use' as const, id: 'toolu_2', name: 'news', input: { topic: 'sailing', limit: 5 } },
    ];
    const { provider } = await setup([
      sse(anthropicStream([{ type: 'text', text: 'Checking.' }, ...calls], { size: 2 })),
    ]);
    const list = await events(provider.stream(ask('plan my trip')));
    const deltas = list.filter((e) => e.type === 'tool_call_delta');
    expect(deltas.length).toBeGreaterThan(10);
    expect(list.filter((e) => e.type === 'tool_call_start').map((e) => (e as { id: string }).id)).toEqual([
      'toolu_1',
      'toolu_2',
    ]);
    const done = list.at(-1) as Extract<StreamEvent, { type: 'done' }>;
    expect(done.response.toolCalls).toEqual(
      calls.map(({ id, name, input }) => ({ id, name, arguments: input })),
    );
    expect(done.response.content).toBe('Checking.');
    expect(done.response.finishReason).toBe('tool_calls');
  });

  it('keeps a tool input a compatible server sends whole in content_block_start, with no fragment', async () => {
    const wire = anthropicStream([
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
    ]);
    // The server puts the input in the block's start and streams no input_json_delta after it.
    const whole = wire
      .filter((e) => (e.data as { delta?: { type?: string } }).delta?.type !== 'input_json_delta')
      .map((e) => {
        const data = e.data as { type: string; content_block?: Record<string, unknown> };
        return data.type === 'content_block_start'
          ? { ...e, data: { ...data, content_block: { ...data.content_block, input: { city: 'Oslo' } } } }
          : e;
      });
    const { provider } = await setup([sse(whole)]);
    const list = await events(provider.stream(ask('weather?')));
    const done = list.at(-1) as Extract<StreamEvent, { type: 'done' }>;
    expect(done.response.toolCalls).toEqual([
      { id: 'toolu_1', name: 'weather', arguments: { city: 'Oslo' } },
    ]);
    expect(list.filter((e) => e.type === 'tool_call_delta')).toEqual([
      { type: 'tool_call_delta', id: 'toolu_1', argumentsDelta: '{"city":"Oslo"}' },
    ]);
  });

  it('asks again when an answer ends with nothing said for a stop reason that is no normal end (pause_turn)', async () => {
    const { server, provider } = await setup([
      sse(anthropicStream([], { stopReason: 'pause_turn' })),
      sse(anthropicText('second try')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('second try');
    expect(server.requests).toHaveLength(2);
    const once = await setup([sse(anthropicStream([], { stopReason: 'pause_turn' }))], {
      retry: { maxAttempts: 1 },
    });
    const error = lastError(await events(once.provider.stream(ask('hi'))));
    expect(error).toMatchObject({ code: 'MODEL_ERROR', retryable: true });
    expect(error.message).toBe(
      'anthropic model claude-test stopped with pause_turn, the model gave no answer',
    );
    // An empty end_turn is what the model meant (it has nothing to add after a tool's result).
    const quiet = await setup([sse(anthropicStream([]))]);
    expect(await quiet.provider.chat(ask('hi'))).toMatchObject({ content: null, finishReason: 'stop' });
  });

  it('reads past an event whose data is null or no object', async () => {
    const wire = anthropicText('Still here.');
    wire.splice(2, 0, { event: 'content_block_delta', data: 'null' }, { event: 'message_delta', data: '7' });
    const { provider } = await setup([sse(wire)]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('Still here.');
    expect(response.finishReason).toBe('stop');
  });

  it('sends a tool schema with anyOf at its root as one object, which the API accepts', async () => {
    const { server, provider } = await setup([sse(anthropicText('ok'))]);
    // The shape MCP servers send for "give an id or a name"; the API refuses it as is.
    const parameters = {
      type: 'object',
      properties: { verbose: { type: 'boolean' } },
      anyOf: [
        { properties: { id: { type: 'string' } }, required: ['id'] },
        { properties: { name: { type: 'string' } }, required: ['name'] },
      ],
    };
    await provider.chat(ask('find it', { tools: [{ name: 'find', description: 'Finds', parameters }] }));
    expect(server.requests[0].body.tools[0].input_schema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, name: { type: 'string' }, verbose: { type: 'boolean' } },
    });
  });

  it('maps cache creation and cache reads to their buckets', async () => {
    const usage = {
      input_tokens: 21,
      output_tokens: 9,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 3000,
    };
    const { server, provider } = await setup([sse(anthropicText('ok', { usage }))], { promptCaching: true });
    const response = await provider.chat(
      ask('hi', {
        system: 'A long stable system prompt.',
        tools: [{ name: 'a', description: 'A', parameters: { type: 'object', properties: {} } }],
      }),
    );
    expect(response.usage).toEqual({
      inputTokens: 21,
      outputTokens: 9,
      cacheReadTokens: 3000,
      cacheWriteTokens: 1500,
    });
    const body = server.requests[0].body;
    expect(body.system).toEqual([
      { type: 'text', text: 'A long stable system prompt.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('asks for structured output through output_config', async () => {
    const { server, provider } = await setup([sse(anthropicText('{"queue":"tech"}'))]);
    const schema = {
      type: 'object',
      properties: { queue: { enum: ['billing', 'tech'] } },
      required: ['queue'],
    };
    const response = await provider.chat(
      ask('route me', { responseFormat: { type: 'json_schema', schema } }),
    );
    expect(JSON.parse(response.content ?? '')).toEqual({ queue: 'tech' });
    expect(server.requests[0].body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('sends consecutive tool results as one user turn, with images and is_error', async () => {
    const { server, provider } = await setup([sse(anthropicText('done'))]);
    await provider.chat({
      model: 'claude-test',
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 't1', name: 'shot', arguments: {} },
            { id: 't2', name: 'fail', arguments: { x: 1 } },
          ],
        },
        {
          role: 'tool',
          toolCallId: 't1',
          name: 'shot',
          content: 'screenshot',
          image: { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        },
        { role: 'tool', toolCallId: 't2', name: 'fail', content: 'it broke', isError: true },
      ],
    });
    const messages = server.requests[0].body.messages;
    expect(messages).toHaveLength(3);
    expect(messages[1].content).toEqual([
      { type: 'tool_use', id: 't1', name: 'shot', input: {} },
      { type: 'tool_use', id: 't2', name: 'fail', input: { x: 1 } },
    ]);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [
            { type: 'text', text: 'screenshot' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
        { type: 'tool_result', tool_use_id: 't2', content: 'it broke', is_error: true },
      ],
    });
  });

  it('keeps thinking blocks in providerData and sends them back first', async () => {
    const { server, provider } = await setup(
      [
        sse(
          anthropicStream([
            { type: 'thinking', thinking: 'The user wants the weather.', signature: 'sig-abc' },
            { type: 'tool_use', id: 'toolu_9', name: 'weather', input: { city: 'Oslo' } },
          ]),
        ),
        sse(anthropicText('Sunny.')),
      ],
      { thinking: { budgetTokens: 2000 }, maxOutputTokens: 1000 },
    );
    const first = await provider.chat(ask('weather?'));
    expect(first.providerData).toEqual({
      anthropic: {
        thinking: [{ type: 'thinking', thinking: 'The user wants the weather.', signature: 'sig-abc' }],
      },
    });
    expect(server.requests[0].body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(server.requests[0].body.max_tokens).toBe(3000);
    await provider.chat({
      model: 'claude-test',
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: first.content,
          toolCalls: first.toolCalls,
          providerData: first.providerData,
        },
        { role: 'tool', toolCallId: 'toolu_9', name: 'weather', content: 'sunny' },
      ],
    });
    expect(server.requests[1].body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'The user wants the weather.', signature: 'sig-abc' },
      { type: 'tool_use', id: 'toolu_9', name: 'weather', input: { city: 'Oslo' } },
    ]);
  });
});

describe('anthropic provider failures', () => {
  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    const { server, provider } = await setup([
      anthropicError(429, 'rate_limit_error', 'Too many requests', { 'retry-after': '1' }),
      sse(anthropicText('finally')),
    ]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('finally');
    expect(server.requests).toHaveLength(2);
    const waited = server.requests[1].time - server.requests[0].time;
    console.log(`429 Retry-After: 1 -> retried after ${waited} ms`);
    expect(waited).toBeGreaterThanOrEqual(900);
  });

  it('retries a 500 three times, then succeeds (529 overloaded counts too)', async () => {
    const { server, provider } = await setup([
      anthropicError(500, 'api_error', 'boom'),
      anthropicError(529, 'overloaded_error', 'Overloaded'),
      anthropicError(500, 'api_error', 'boom'),
      sse(anthropicText('recovered')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('recovered');
    expect(server.requests).toHaveLength(4);
  });

  it('does not retry a 401 and names the model, the status and the API message, never the key', async () => {
    const { server, provider } = await setup([
      anthropicError(401, 'authentication_error', 'invalid x-api-key'),
    ]);
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({
      code: 'PROVIDER_ERROR',
      retryable: false,
      context: { status: 401, model: 'claude-test' },
    });
    expect(error.message).toBe('anthropic model claude-test failed with HTTP 401: invalid x-api-key');
    expect(error.message).not.toContain(KEY);
  });

  it('turns a stream cut after the first tokens into a MODEL_ERROR, without retrying', async () => {
    const { server, provider } = await setup([
      sse(anthropicText('a long answer that will be cut', { size: 2 }), { cutAfter: 6 }),
    ]);
    const list = await events(provider.stream(ask('hi')));
    expect(list.some((e) => e.type === 'token')).toBe(true);
    expect(lastError(list).code).toBe('MODEL_ERROR');
    expect(server.requests).toHaveLength(1);
    // message_start counted the input; the output it says (1) is a placeholder message_delta never
    // replaced: what arrived ("a long", about 2 tokens) is estimated, and said to be.
    expect(lastError(list).context.usage).toEqual({
      inputTokens: 12,
      outputTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      unreported: true,
    });
  });

  it('treats an error event inside the stream before any token as a failure', async () => {
    const overloaded = {
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    };
    const { provider } = await setup([sse([overloaded])], { retry: { maxAttempts: 1 } });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error.code).toBe('PROVIDER_ERROR');
    // The server answered and then failed: not a connection that failed.
    expect(error.message).toBe(
      'anthropic model claude-test: the server failed during the answer (Overloaded)',
    );
  });

  it('times out on a server that never answers', async () => {
    const { server, provider } = await setup([{ hang: true }], { timeout: 200, retry: { maxAttempts: 1 } });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe(
      "anthropic model claude-test: timed out, no data for 200 ms, the model's timeout",
    );
    expect(server.requests).toHaveLength(1);
  });

  it('aborts the HTTP request when the run is cancelled during streaming', async () => {
    const { server, provider } = await setup([
      sse(anthropicText('slow answer '.repeat(40), { size: 3 }), { delayMs: 20 }),
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
  });
});
