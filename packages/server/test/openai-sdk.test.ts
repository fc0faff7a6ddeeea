import {
  type Agent,
  AgentError,
  createAgent,
  defineTool,
  InMemorySessionStore,
  type ModelProvider,
  offline,
  type StreamEvent,
} from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { AgentSource } from '../src/agent-source.js';
import { createApp } from '../src/create-app.js';

// The official openai SDK as the client of the app `agentctl serve` mounts, through hono's
// app.request: every answer it gets must parse, and every error must be one it raises as OpenAI's.
function clientOf(agents: Agent[], options: { tokens?: string[]; maxBodyBytes?: number } = {}): OpenAI {
  const store = new InMemorySessionStore();
  const source: AgentSource = {
    list: () => agents.map((a) => ({ name: a.name, description: a.description })),
    lease(name: string) {
      const agent = agents.find((a) => a.name === name);
      return agent && { agent, store, release: () => {} };
    },
    stores: async () => [store],
  };
  const { app } = createApp({ source, ...options });
  return new OpenAI({
    baseURL: 'http://127.0.0.1/v1',
    apiKey: options.tokens?.[0] ?? 'none',
    maxRetries: 0,
    fetch: (url, init) => app.request(String(url), init as RequestInit),
  });
}

const echo = () => createAgent({ name: 'echo', description: 'Says it back', provider: offline('echo') });
const hi = [{ role: 'user' as const, content: 'hi' }];

describe('the OpenAI-compatible endpoint through the openai SDK', () => {
  it('retrieves one agent as a model; an unknown one is a 404 the SDK raises', async () => {
    const client = clientOf([echo()]);
    expect(await client.models.retrieve('echo')).toMatchObject({
      id: 'echo',
      object: 'model',
      owned_by: 'agentctl',
    });
    await expect(client.models.retrieve('nobody')).rejects.toMatchObject({
      status: 404,
      code: 'unknown_agent',
      type: 'invalid_request_error',
      message: '404 no agent named "nobody"',
    });
  });

  it("shapes the guards' errors as OpenAI's: a missing token, a body too large, a path it does not serve", async () => {
    const locked = clientOf([echo()], { tokens: ['sk-right'] });
    const anonymous = locked.withOptions({ apiKey: 'sk-wrong' });
    await expect(anonymous.chat.completions.create({ model: 'echo', messages: hi })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
      type: 'authentication_error',
    });
    const small = clientOf([echo()], { maxBodyBytes: 1000 });
    await expect(
      small.chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'x'.repeat(2000) }],
      }),
    ).rejects.toMatchObject({
      status: 413,
      code: 'body_too_large',
      type: 'invalid_request_error',
      param: null,
    });
    await expect(small.embeddings.create({ model: 'echo', input: 'hi' })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      type: 'invalid_request_error',
    });
  });

  it('a run that fails in the middle of a stream is raised by the SDK as an APIError with its code and type', async () => {
    const down = createAgent({
      name: 'down',
      provider: scriptedModel([{ error: { message: 'the upstream model is down', code: 'PROVIDER_ERROR' } }]),
    });
    const client = clientOf([down]);
    const stream = await client.chat.completions.create({ model: 'down', messages: hi, stream: true });
    const failure = await (async () => {
      for await (const _ of stream) {
        // the role chunk comes first; the failure after it
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ code: 'PROVIDER_ERROR', type: 'server_error' });
    expect((failure as Error).message).toContain('the upstream model is down');
  });

  it('a run that fails is a response.failed event when streamed, an APIError with its code when not (Responses API)', async () => {
    const down = () =>
      createAgent({
        name: 'down',
        provider: scriptedModel([
          { error: { message: 'the upstream model is down', code: 'PROVIDER_ERROR' } },
        ]),
      });
    const stream = await clientOf([down()]).responses.create({ model: 'down', input: 'hi', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    expect(last?.type === 'response.failed' && last.response).toMatchObject({
      status: 'failed',
      error: { code: 'PROVIDER_ERROR', message: expect.stringContaining('the upstream model is down') },
    });
    const failure = await clientOf([down()])
      .responses.create({ model: 'down', input: 'hi' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ status: 502, code: 'PROVIDER_ERROR', type: 'server_error' });
  });

  it('a run that fails after it said something: response.failed carries the items said so far, the cut one incomplete', async () => {
    // A model that says a sentence before a tool call, then, on the next call, half a sentence and fails.
    let calls = 0;
    const flaky: ModelProvider = {
      name: 'flaky',
      chat: () => Promise.reject(new Error('streamed only')),
      async *stream() {
        calls++;
        if (calls === 1) {
          yield { type: 'token', text: 'Let me look.' };
          const call = { id: 'call_1', name: 'look', arguments: {} };
          yield { type: 'tool_call_end', id: 'call_1', call };
          yield {
            type: 'done',
            response: { text: 'Let me look.', toolCalls: [call], finishReason: 'tool_calls', usage: {} },
          } as StreamEvent;
          return;
        }
        yield { type: 'token', text: 'It says ' };
        throw new AgentError('the upstream model went down mid-answer', 'PROVIDER_ERROR');
      },
    };
    const look = defineTool({
      name: 'look',
      description: 'Looks',
      parameters: { type: 'object', properties: {} },
      execute: async () => 'found it',
    });
    const agent = () => createAgent({ name: 'flaky', provider: flaky, tools: [look] });
    const stream = await clientOf([agent()]).responses.create({ model: 'flaky', input: 'hi', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    const failed = last?.type === 'response.failed' ? last.response : undefined;
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'PROVIDER_ERROR', message: expect.stringContaining('went down mid-answer') },
    });
    expect(failed?.output).toEqual([
      expect.objectContaining({
        type: 'message',
        status: 'completed',
        content: [expect.objectContaining({ text: 'Let me look.' })],
      }),
      expect.objectContaining({
        type: 'message',
        status: 'incomplete',
        content: [expect.objectContaining({ text: 'It says ' })],
      }),
    ]);
    // Every item added was also done, as the stream's own events say, before the failure.
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item.id);
    const done = events.filter((e) => e.type === 'response.output_item.done');
    expect(done.map((e) => e.item.id)).toEqual(added);
    expect(done.map((e) => e.item.status)).toEqual(['completed', 'incomplete']);
    expect(failed?.output.map((item) => item.id)).toEqual(added);
    // Not streamed: the same failure is an APIError with its code (an HTTP error has no output).
    calls = 0;
    const failure = await clientOf([agent()])
      .responses.create({ model: 'flaky', input: 'hi' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ status: 502, code: 'PROVIDER_ERROR', type: 'server_error' });
    // With a session, the error names it: what was said before the failure is kept there.
    calls = 0;
    const kept = await clientOf([agent()])
      .responses.create({ model: 'flaky', input: 'hi' }, { headers: { 'x-agentctl-session': 'kept-1' } })
      .catch((error: unknown) => error);
    expect((kept as InstanceType<typeof OpenAI.APIError>).headers?.get('x-agentctl-session')).toBe('kept-1');
  });
});
