import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, removeTempDirs } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// The official openai SDK as the client of the real `agentctl serve` process.
let server: ServeProcess;
let client: OpenAI;

beforeAll(async () => {
  const dir = await fixtureProject('serve');
  server = await startServe(dir, [], { AGENTCTL_SERVE_TOKEN: 'sk-local' });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local', maxRetries: 0 });
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

const sessionCount = async () =>
  (await (await fetch(`${server.url}/sessions`, { headers: { authorization: 'Bearer sk-local' } })).json())
    .sessions.length;

describe('agentctl serve: OpenAI-compatible endpoint', () => {
  it('lists the agents as models', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(['cashier', 'echo', 'sleepy', 'slow']);
  });

  it('answers a chat completion from the agent named by model', async () => {
    const completion = await client.chat.completions.create({
      model: 'echo',
      messages: [
        { role: 'system', content: 'ignored: the agent has its own instruction' },
        { role: 'user', content: 'ping from the sdk' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'ping from the sdk' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streams chunks as the agent produces text, with usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'one two three four' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        if (choice.delta.content) pieces.push(choice.delta.content);
        finish = choice.finish_reason ?? finish;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.join('')).toBe('one two three four');
    expect(pieces.length).toBeGreaterThan(1);
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('tells a paused run in the answer, streamed or not: the calls waiting for a decision', async () => {
    const request = { model: 'cashier', messages: [{ role: 'user' as const, content: 'refund A-1' }] };
    const whole = (await client.chat.completions.create(request)) as OpenAI.ChatCompletion & {
      agentctl?: { status: string; pending: Array<{ call: { name: string } }> };
    };
    expect(whole.agentctl).toMatchObject({ status: 'paused', pending: [{ call: { name: 'refund' } }] });
    const stream = await client.chat.completions.create({ ...request, stream: true });
    const tails: unknown[] = [];
    for await (const chunk of stream) {
      const told = (chunk as { agentctl?: unknown }).agentctl;
      if (told) tails.push({ finish: chunk.choices[0]?.finish_reason, agentctl: told });
    }
    expect(tails).toMatchObject([
      { finish: 'stop', agentctl: { status: 'paused', pending: [{ call: { name: 'refund' } }] } },
    ]);
    // Without a session header nothing was stored: the answer says the calls cannot be decided.
    for (const told of [whole.agentctl, (tails[0] as { agentctl: unknown }).agentctl])
      expect(told).toMatchObject({ sessionId: null, message: expect.stringContaining('x-agentctl-session') });
    // With one, the answer names the session whose calls to decide, and deciding them works.
    const kept = (await client.chat.completions.create(request, {
      headers: { 'x-agentctl-session': 'openai-paused' },
    })) as OpenAI.ChatCompletion & {
      agentctl?: { sessionId: string; pending: Array<{ call: { id: string } }> };
    };
    expect(kept.agentctl?.sessionId).toBe('openai-paused');
    const decided = await fetch(`${server.url}/sessions/openai-paused/decisions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-local', 'content-type': 'application/json' },
      body: JSON.stringify({
        decisions: [{ callId: kept.agentctl?.pending[0].call.id, decision: 'approve' }],
        stream: false,
      }),
    });
    expect((await decided.json()).status).toBe('complete');
  });

  it('continues a stored session with x-agentctl-session, else takes the messages as the history', async () => {
    const headers = { 'x-agentctl-session': 'openai-chat-1' };
    await client.chat.completions.create(
      { model: 'echo', messages: [{ role: 'user', content: 'first' }] },
      { headers },
    );
    await client.chat.completions.create(
      { model: 'echo', messages: [{ role: 'user', content: 'second' }] },
      { headers },
    );
    const session = await (
      await fetch(`${server.url}/sessions/openai-chat-1`, { headers: { authorization: 'Bearer sk-local' } })
    ).json();
    const users = session.events
      .filter(
        (e: { type: string; message?: { role: string } }) =>
          e.type === 'message' && e.message?.role === 'user',
      )
      .map((e: { message: { content: string } }) => e.message.content);
    expect(users).toEqual(['first', 'second']);

    // Without the header nothing is stored: the earlier turns come from the request.
    const before = await (
      await fetch(`${server.url}/sessions`, { headers: { authorization: 'Bearer sk-local' } })
    ).json();
    const stateless = await client.chat.completions.create({
      model: 'echo',
      messages: [
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer' },
        { role: 'user', content: [{ type: 'text', text: 'latest' }] },
      ],
    });
    expect(stateless.choices[0].message.content).toBe('latest');
    // The earlier turns reached the model: the same last message costs fewer input tokens alone.
    const alone = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'latest' }],
    });
    expect(stateless.usage?.prompt_tokens).toBeGreaterThan(alone.usage?.prompt_tokens ?? Infinity);
    const after = await (
      await fetch(`${server.url}/sessions`, { headers: { authorization: 'Bearer sk-local' } })
    ).json();
    expect(after.sessions).toHaveLength(before.sessions.length);
  });

  it('refuses what an agent cannot give, naming the parameter as OpenAI does, and runs nothing', async () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const fn = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } };
    const before = await sessionCount();
    for (const [param, extra] of [
      ['n', { n: 3 }],
      ['tools', { tools: [fn] }],
      ['tool_choice', { tool_choice: 'required' }],
      ['response_format', { response_format: { type: 'json_object' } }],
      ['stream_options', { stream_options: { include_usage: true } }],
    ] as const) {
      await expect(
        client.chat.completions.create({ model: 'echo', messages, ...extra } as never),
      ).rejects.toMatchObject({
        status: 400,
        code: 'unsupported_parameter',
        type: 'invalid_request_error',
        param,
      });
    }
    // What means the same as leaving it out is answered.
    const plain = await client.chat.completions.create({
      model: 'echo',
      messages,
      n: 1,
      tools: [],
      tool_choice: 'none',
      response_format: { type: 'text' },
    });
    expect(plain.choices).toHaveLength(1);
    expect(await sessionCount()).toBe(before);
  });

  it('fails like OpenAI does: unknown model 404, no token 401, bad messages 400', async () => {
    await expect(
      client.chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 404 });
    const anonymous = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
    await expect(anonymous.models.list()).rejects.toMatchObject({ status: 401 });
    await expect(client.chat.completions.create({ model: 'echo', messages: [] })).rejects.toMatchObject({
      status: 400,
    });
  });
});
