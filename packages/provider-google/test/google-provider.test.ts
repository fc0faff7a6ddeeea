import type { StreamEvent } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { events, lastError } from '../../../test/support/stream-events.js';
import { wireHarness } from '../../../test/support/wire-harness.js';
import { createGoogleProvider } from '../src/index.js';
import { geminiError, geminiErrorBody, geminiStream, geminiText } from './support/gemini-wire.js';

const KEY = 'AIza-test-secret-0123456789';
const STREAM_PATH = '/v1beta/models/gemini-test:streamGenerateContent?alt=sse';
const { setup, ask } = wireHarness({
  apiKey: KEY,
  basePath: '',
  model: 'gemini-test',
  create: createGoogleProvider,
});

describe('google provider on the wire', () => {
  it('streams an answer with the system instruction, sampling fields and the key header', async () => {
    const { server, provider } = await setup([sse(geminiText('Hello from Gemini!', { size: 3 }))]);
    const list = await events(
      provider.stream(ask('hi', { system: 'Be kind.', temperature: 0.5, topP: 0.9, maxOutputTokens: 256 })),
    );
    const tokens = list.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join('')).toBe('Hello from Gemini!');
    expect(list.at(-1)).toMatchObject({
      type: 'done',
      response: {
        content: 'Hello from Gemini!',
        finishReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 6, cacheReadTokens: 0 },
      },
    });
    const request = server.requests[0];
    expect(request.url).toBe(STREAM_PATH);
    expect(request.headers['x-goog-api-key']).toBe(KEY);
    expect(request.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      systemInstruction: { parts: [{ text: 'Be kind.' }], role: 'user' },
      generationConfig: { temperature: 0.5, topP: 0.9, maxOutputTokens: 256 },
    });
  });

  it('assembles parallel function calls that arrive between text chunks', async () => {
    const calls = [
      { name: 'weather', args: { city: 'Oslo', days: 3 } },
      { name: 'news', args: { topic: 'sailing', limit: 5 } },
    ];
    const { server, provider } = await setup([
      sse(
        geminiStream(
          [
            { text: 'Checking both.' },
            { functionCall: calls[0] },
            { text: ' One more.' },
            { functionCall: { ...calls[1], id: 'server-id-2' } },
          ],
          { size: 5 },
        ),
      ),
    ]);
    const list = await events(
      provider.stream(
        ask('plan my trip', {
          tools: [
            {
              name: 'weather',
              description: 'Weather',
              parameters: { properties: { city: { type: 'string' } }, required: ['city'] },
            },
            { name: 'news', description: 'News', parameters: { type: 'object', properties: {} } },
          ],
        }),
      ),
    );
    const starts = list.filter((e) => e.type === 'tool_call_start') as Array<{ id: string; name: string }>;
    expect(starts.map((s) => s.name)).toEqual(['weather', 'news']);
    expect(starts[1].id).toBe('server-id-2');
    expect(new Set(starts.map((s) => s.id)).size).toBe(2);
    const done = list.at(-1) as Extract<StreamEvent, { type: 'done' }>;
    expect(done.response.toolCalls.map(({ name, arguments: a }) => ({ name, args: a }))).toEqual(calls);
    expect(done.response.content).toBe('Checking both. One more.');
    expect(done.response.finishReason).toBe('tool_calls');
    expect(server.requests[0].body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'weather',
            description: 'Weather',
            parametersJsonSchema: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
            },
          },
          {
            name: 'news',
            description: 'News',
            parametersJsonSchema: { type: 'object', properties: {} },
          },
        ],
      },
    ]);
  });

  it('sends tool results back as one user turn of functionResponse parts, the server ids kept', async () => {
    const { server, provider } = await setup([sse(geminiText('done'))]);
    await provider.chat({
      model: 'gemini-test',
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'gemini-call-local1', name: 'shot', arguments: {} },
            { id: 'server-id', name: 'fail', arguments: { x: 1 } },
          ],
        },
        {
          role: 'tool',
          toolCallId: 'gemini-call-local1',
          name: 'shot',
          content: 'screenshot',
          image: { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        },
        { role: 'tool', toolCallId: 'server-id', name: 'fail', content: 'it broke', isError: true },
        { role: 'user', content: 'and?' },
      ],
    });
    const contents = server.requests[0].body.contents;
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'look' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'shot', args: {} } },
          { functionCall: { id: 'server-id', name: 'fail', args: { x: 1 } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'shot', response: { output: 'screenshot' } } },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { functionResponse: { id: 'server-id', name: 'fail', response: { error: 'it broke' } } },
          { text: 'and?' },
        ],
      },
    ]);
  });

  it('asks for structured output with responseJsonSchema', async () => {
    const { server, provider } = await setup([sse(geminiText('{"queue":"tech"}'))]);
    const schema = {
      type: 'object',
      properties: { queue: { enum: ['billing', 'tech'] } },
      required: ['queue'],
    };
    const response = await provider.chat(
      ask('route me', { responseFormat: { type: 'json_schema', schema } }),
    );
    expect(JSON.parse(response.content ?? '')).toEqual({ queue: 'tech' });
    expect(server.requests[0].body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('counts cached tokens apart from the input and thinking tokens as output', async () => {
    const usage = {
      promptTokenCount: 5000,
      cachedContentTokenCount: 4096,
      candidatesTokenCount: 9,
      thoughtsTokenCount: 120,
    };
    const { server, provider } = await setup([sse(geminiText('ok', { usage }))], {
      cachedContent: 'cachedContents/abc123',
    });
    const response = await provider.chat(ask('hi'));
    expect(response.usage).toEqual({
      inputTokens: 904,
      outputTokens: 129,
      cacheReadTokens: 4096,
      cacheWriteTokens: 0,
    });
    expect(server.requests[0].body.cachedContent).toBe('cachedContents/abc123');
  });

  it('keeps thought signatures and sends the model parts back unchanged, with the thinking config', async () => {
    const { server, provider } = await setup(
      [
        sse(
          geminiStream([
            { text: 'The user wants the weather.', thought: true },
            { functionCall: { name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnLWFiYw==' },
          ]),
        ),
        sse(geminiText('Sunny.')),
      ],
      { thinking: { budgetTokens: 2048, includeThoughts: true } },
    );
    const first = await provider.chat(ask('weather?'));
    expect(first.content).toBeNull();
    expect(server.requests[0].body.generationConfig.thinkingConfig).toEqual({
      thinkingBudget: 2048,
      includeThoughts: true,
    });
    await provider.chat({
      model: 'gemini-test',
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, toolCalls: first.toolCalls, providerData: first.providerData },
        { role: 'tool', toolCallId: first.toolCalls[0].id, name: 'weather', content: 'sunny' },
      ],
    });
    expect(server.requests[1].body.contents[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'The user wants the weather.', thought: true },
        { functionCall: { name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnLWFiYw==' },
      ],
    });
  });
  it('ends a blocked prompt with content_filter and no text', async () => {
    const { provider } = await setup([
      sse([
        {
          data: {
            promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
            usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
          },
        },
      ]),
    ]);
    const response = await provider.chat(ask('something forbidden'));
    expect(response).toMatchObject({ content: null, toolCalls: [], finishReason: 'content_filter' });
    expect(response.usage.inputTokens).toBe(7);
  });

  // What Gemini streams when the model's function call failed: no parts, only the reason.
  // (finishMessage is sent by the API, but the SDK drops it.)
  const failedCall = (reason: string, message?: string) =>
    sse([
      {
        data: {
          candidates: [
            {
              content: { role: 'model', parts: [] },
              finishReason: reason,
              ...(message ? { finishMessage: message } : {}),
              index: 0,
            },
          ],
          usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
        },
      },
    ]);

  it('asks again when the model wrote a malformed function call, instead of an empty answer', async () => {
    const { server, provider } = await setup([
      failedCall('MALFORMED_FUNCTION_CALL', 'Malformed function call: print(weather(city=Oslo'),
      sse(geminiStream([{ functionCall: { name: 'weather', args: { city: 'Oslo' } } }])),
    ]);
    const tools = [{ name: 'weather', description: 'weather', parameters: { type: 'object' } }];
    const response = await provider.chat(ask('weather in Oslo?', { tools }));
    expect(server.requests).toHaveLength(2);
    expect(response.toolCalls).toMatchObject([{ name: 'weather', arguments: { city: 'Oslo' } }]);
    // The failed attempt's 9 prompt tokens were billed too.
    expect(response.usage).toMatchObject({ inputTokens: 9 + 12, outputTokens: 6 });
  });

  it('fails with the finish reason when every attempt ends without an answer', async () => {
    const { server, provider } = await setup(
      [
        failedCall('MALFORMED_FUNCTION_CALL', 'Malformed function call: x('),
        failedCall('UNEXPECTED_TOOL_CALL'),
      ],
      { retry: { maxAttempts: 2, initialDelayMs: 1 } },
    );
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(server.requests).toHaveLength(2);
    expect(error).toMatchObject({
      code: 'MODEL_ERROR',
      context: { finishReason: 'UNEXPECTED_TOOL_CALL', usage: { inputTokens: 18, outputTokens: 0 } },
    });
    expect(error.message).toBe(
      'google model gemini-test stopped with UNEXPECTED_TOOL_CALL, the model called a tool it was not given (after 2 attempts)',
    );
    const [only] = await events(
      (await setup([failedCall('OTHER', 'Unknown stop')], { retry: { maxAttempts: 1 } })).provider.stream(
        ask('hi'),
      ),
    );
    expect(only).toMatchObject({ type: 'error' });
    expect((only as { error: Error }).error.message).toBe(
      'google model gemini-test stopped with OTHER, the model gave no answer',
    );
  });

  it('keeps the text of an answer that stopped for an unlisted reason, and does not retry it', async () => {
    const { server, provider } = await setup([sse(geminiText('Hei.', { finishReason: 'LANGUAGE' }))]);
    const response = await provider.chat(ask('hi'));
    expect(server.requests).toHaveLength(1);
    expect(response).toMatchObject({ content: 'Hei.', finishReason: 'other' });
  });
});

describe('google provider failures', () => {
  it('waits as long as the RetryInfo delay of a 429 says, then succeeds', async () => {
    const { server, provider } = await setup([
      geminiError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', '1s'),
      sse(geminiText('finally')),
    ]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('finally');
    expect(server.requests).toHaveLength(2);
    const waited = server.requests[1].time - server.requests[0].time;
    expect(waited).toBeGreaterThanOrEqual(900);
  });

  it('waits as long as the Retry-After header of a proxy in front of the API says, in seconds or as a date', async () => {
    const page = '<html><head><title>503 Service Unavailable</title></head><body>busy</body></html>';
    // An HTTP date has whole seconds: three from now is at least two away when it is read.
    const inThreeSeconds = new Date(Date.now() + 3000).toUTCString();
    const { server, provider } = await setup([
      {
        status: 429,
        headers: { 'retry-after': inThreeSeconds },
        json: { error: { code: 429, message: 'slow down' } },
      },
      { status: 503, headers: { 'retry-after': '1', 'content-type': 'text/html' }, body: page },
      sse(geminiText('finally')),
    ]);
    const response = await provider.chat(ask('hi'));
    expect(response.content).toBe('finally');
    expect(server.requests).toHaveLength(3);
    expect(server.requests[1].time - server.requests[0].time).toBeGreaterThanOrEqual(1000);
    expect(server.requests[2].time - server.requests[1].time).toBeGreaterThanOrEqual(900);

    const { provider: once } = await setup(
      [{ status: 503, headers: { 'retry-after': '3600', 'content-type': 'text/html' }, body: page }],
      { retry: { maxAttempts: 3, maxDelayMs: 2000 } },
    );
    const error = lastError(await events(once.stream(ask('hi'))));
    expect(error.context).toMatchObject({ status: 503, retryAfterMs: 3_600_000 });
    expect(error.message).toBe(
      'google model gemini-test failed with HTTP 503: HTML page: 503 Service Unavailable (the server asked to wait 3600 s, longer than retry.max_delay 2 s: not retried)',
    );
  });

  it('gives up at once when the RetryInfo delay is longer than the policy allows', async () => {
    const { server, provider } = await setup(
      [geminiError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', '27s'), sse(geminiText('never'))],
      { retry: { maxAttempts: 3, maxDelayMs: 2000 } },
    );
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({
      code: 'PROVIDER_ERROR',
      retryable: true,
      context: { status: 429, type: 'RESOURCE_EXHAUSTED', retryAfterMs: 27_000 },
    });
  });

  it('retries 500 and 503 answers, then succeeds', async () => {
    const { server, provider } = await setup([
      geminiError(500, 'INTERNAL', 'boom'),
      geminiError(503, 'UNAVAILABLE', 'The model is overloaded.'),
      geminiError(500, 'INTERNAL', 'boom'),
      sse(geminiText('recovered')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('recovered');
    expect(server.requests).toHaveLength(4);
  });

  it('does not retry a 401 and names the model, the status and the API message, never the key', async () => {
    const { server, provider } = await setup([
      geminiError(401, 'UNAUTHENTICATED', 'API key not valid. Please pass a valid API key.'),
    ]);
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({
      code: 'PROVIDER_ERROR',
      retryable: false,
      context: { status: 401, model: 'gemini-test', type: 'UNAUTHENTICATED' },
    });
    expect(error.message).toBe(
      'google model gemini-test failed with HTTP 401: API key not valid. Please pass a valid API key.',
    );
    expect(error.message).not.toContain(KEY);
  });

  it('turns a stream cut after the first tokens into a MODEL_ERROR, without retrying', async () => {
    const { server, provider } = await setup([
      sse(geminiText('a long answer that will be cut', { size: 2 }), { cutAfter: 4 }),
    ]);
    const list = await events(provider.stream(ask('hi')));
    expect(list.some((e) => e.type === 'token')).toBe(true);
    expect(lastError(list).code).toBe('MODEL_ERROR');
    expect(server.requests).toHaveLength(1);
    // Usage comes with the last chunk: what arrived ("a long a", about 2 tokens) is estimated, and said to be.
    expect(lastError(list).context.usage).toEqual({ inputTokens: 0, outputTokens: 2, unreported: true });
  });

  it('retries a stream that ended before any output and before its finish reason', async () => {
    const { server, provider } = await setup([
      sse(geminiText('cut'), { cutAfter: 0 }),
      sse(geminiText('whole')),
    ]);
    expect((await provider.chat(ask('hi'))).content).toBe('whole');
    expect(server.requests).toHaveLength(2);
  });

  it('treats an error chunk inside the stream before any token as a retryable failure', async () => {
    const { provider } = await setup([sse([{ data: geminiErrorBody(503, 'UNAVAILABLE', 'Overloaded') }])], {
      retry: { maxAttempts: 1 },
    });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true, context: { status: 503 } });
    expect(error.message).toContain('Overloaded');
  });

  it('ends with a MODEL_ERROR when an error chunk follows streamed text', async () => {
    const text = geminiText('partial answer', { size: 4 }).slice(0, 2);
    const { server, provider } = await setup([
      sse([...text, { data: geminiErrorBody(500, 'INTERNAL', 'stream broke') }]),
    ]);
    const list = await events(provider.stream(ask('hi')));
    expect(list.filter((e) => e.type === 'token')).toHaveLength(2);
    expect(lastError(list)).toMatchObject({ code: 'MODEL_ERROR', retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('times out on a server that never answers', async () => {
    const { server, provider } = await setup([{ hang: true }], { timeout: 200, retry: { maxAttempts: 1 } });
    const error = lastError(await events(provider.stream(ask('hi'))));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe(
      "google model gemini-test: timed out, no data for 200 ms, the model's timeout",
    );
    expect(server.requests).toHaveLength(1);
  });

  it('aborts the HTTP request when the run is cancelled during streaming', async () => {
    const { server, provider } = await setup([
      sse(geminiText('slow answer '.repeat(40), { size: 3 }), { delayMs: 20 }),
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
