import type { Task } from '@a2a-js/sdk';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, sendParams, userMessage } from './support/a2a-client.js';
import { fixtureProject, removeTempDirs, tempProject } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// The official openai SDK's Responses API (`client.responses.create`) as the client of the real
// `agentctl serve` process.
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

const authorized = { authorization: 'Bearer sk-local' };

describe('agentctl serve: the OpenAI Responses API', () => {
  it('answers a string input with a completed response whose output_text is the answer', async () => {
    const response = await client.responses.create({
      model: 'echo',
      input: 'ping from the responses api',
      metadata: { ticket: 'T-1' },
    });
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'echo',
      error: null,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'ping from the responses api', annotations: [] }],
        },
      ],
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.metadata).toEqual({ ticket: 'T-1' });
    expect(response.output_text).toBe('ping from the responses api');
    expect(response.usage?.total_tokens).toBeGreaterThan(0);
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
  });

  it('takes message items as the conversation: system and developer left out, the last user message answered', async () => {
    const response = await client.responses.create({
      model: 'echo',
      instructions: 'ignored: the agent has its own',
      input: [
        { role: 'developer', content: 'ignored too' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'first answer', annotations: [] }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second question' }] },
      ],
    });
    expect(response.output_text).toBe('second question');
    // The earlier turns reached the model: the same last message costs fewer input tokens alone.
    const alone = await client.responses.create({ model: 'echo', input: 'second question' });
    expect(response.usage?.input_tokens).toBeGreaterThan(alone.usage?.input_tokens ?? Infinity);
  });

  it('streams the Responses events in order, their deltas adding up to the completed response', async () => {
    const stream = await client.responses.create({
      model: 'echo',
      input: 'streamed over responses',
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.join('')).toBe('streamed over responses');
    const done = events.at(-1);
    expect(done?.type === 'response.completed' && done.response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', text: 'streamed over responses', annotations: [] }],
      }),
    ]);
    // The SDK's own stream helper accumulates the same events into the final response.
    const helper = client.responses.stream({ model: 'echo', input: 'through the helper' });
    expect((await helper.finalResponse()).output_text).toBe('through the helper');
  });

  it('continues a stored session with x-agentctl-session, and tells a paused run in the answer', async () => {
    const options = { headers: { 'x-agentctl-session': 'responses-paused' } };
    const paused = (await client.responses.create(
      { model: 'cashier', input: 'refund order A-17' },
      options,
    )) as OpenAI.Responses.Response & { agentctl?: Record<string, unknown> };
    expect(paused.status).toBe('incomplete');
    expect(paused.agentctl).toMatchObject({ status: 'paused', sessionId: 'responses-paused' });
    const session = await (
      await fetch(`${server.url}/sessions/responses-paused`, { headers: authorized })
    ).json();
    expect(session.paused).toBe(true);
    // Streamed, the pause ends the stream as response.incomplete, carrying the same.
    const stream = await client.responses.create(
      { model: 'cashier', input: 'refund order A-18', stream: true },
      { headers: { 'x-agentctl-session': 'responses-paused-streamed' } },
    );
    const events = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.type === 'response.incomplete' && last.response).toMatchObject({
      status: 'incomplete',
      agentctl: { status: 'paused', sessionId: 'responses-paused-streamed' },
    });
  });

  it('refuses what an agent cannot give as OpenAI errors naming the parameter, and an unknown model with 404', async () => {
    const refused = async (body: Record<string, unknown>) =>
      client.responses.create({ model: 'echo', input: 'hi', ...body } as never).catch((e: unknown) => e);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tools: [{ type: 'function', name: 'f', parameters: {} }] }, 'tools'],
      [{ previous_response_id: 'resp_123' }, 'previous_response_id'],
      [{ text: { format: { type: 'json_object' } } }, 'text.format'],
      [{ input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] }, 'input[0]'],
      [
        { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] },
        'input[0].content[0]',
      ],
      [{ input: [{ role: 'assistant', content: 'the last word is not the user’s' }] }, 'input'],
    ];
    for (const [body, param] of cases) {
      const error = await refused(body);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ status: 400, param, type: 'invalid_request_error' });
    }
    const unknown = await client.responses.create({ model: 'nobody', input: 'hi' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as Error).message).toContain('no agent named "nobody"');
    const anonymous = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
    expect(
      await anonymous.responses.create({ model: 'echo', input: 'hi' }).catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

// An agent that speaks before it calls an agent tool, whose own run speaks too: what a stream
// sends must add up to what the answer says, and the tool's inner words are no part of it. The
// script holds the turns of the four runs below, in order.
const TURNS = `  - text: "Let me check. "
    tool_calls: [{ id: call_1, name: helper, arguments: { request: "inner words" } }]
  - text: "The final answer."
`;
const TALKER = `kind: model
name: talky
provider: offline
model: script
script:
${TURNS.repeat(4)}---
kind: agent
name: boss
description: Asks its helper first
model: talky
instruction: Answer.
tools: [{ agent: helper }]
---
kind: agent
name: helper
description: Repeats its request
model: offline/echo
---
kind: model
name: cached
provider: offline
model: script
script:
  - text: From the cache.
    usage: { input_tokens: 40, output_tokens: 9, cache_read_tokens: 30, cache_write_tokens: 5 }
---
kind: agent
name: recaller
description: Answers mostly from the provider's prompt cache
model: cached
---
kind: agent
name: fan
description: Two agents at once
type: parallel
sub_agents: [left, right]
---
kind: agent
name: left
model: offline/echo
---
kind: agent
name: right
model: offline/echo
`;

describe('agentctl serve: OpenAI answers of a scripted project (agent tools, agents at once, a prompt cache)', () => {
  let talk: ServeProcess;
  let talker: OpenAI;
  beforeAll(async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: talk\ninclude: [agents/*.yaml]\n',
      'agents/boss.yaml': TALKER,
    });
    talk = await startServe(dir);
    talker = new OpenAI({ baseURL: `${talk.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });

  it("streams a response item per message, each item's deltas adding up to its text, the same as answered whole", async () => {
    const stream = await talker.responses.create({ model: 'boss', input: 'hi', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const streamed = new Map<string, string>();
    for (const e of events)
      if (e.type === 'response.output_text.delta')
        streamed.set(e.item_id, (streamed.get(e.item_id) ?? '') + e.delta);
    const done = events.flatMap((e) => (e.type === 'response.output_text.done' ? [e] : []));
    expect(done.map((e) => e.text)).toEqual(['Let me check. ', 'The final answer.']);
    for (const e of done) expect(streamed.get(e.item_id), e.item_id).toBe(e.text);
    expect([...streamed.values()].join('')).not.toContain('inner words');
    const last = events.at(-1);
    expect(last?.type).toBe('response.completed');
    const completed = last?.type === 'response.completed' ? last.response : undefined;
    expect(completed?.output.map((o) => o.type === 'message' && o.id)).toEqual(done.map((e) => e.item_id));
    // Answered whole, the response holds the same messages.
    const whole = await talker.responses.create({ model: 'boss', input: 'hi' });
    expect(whole.output.map((o) => o.type === 'message' && o.content)).toEqual(
      completed?.output.map((o) => o.type === 'message' && o.content),
    );
    expect(whole.output_text).toBe('Let me check. The final answer.');
  });

  it('streams the messages of agents speaking at once as items of their own, each said once', async () => {
    const stream = await talker.responses.create({ model: 'fan', input: 'both', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const streamed = new Map<string, string>();
    for (const e of events)
      if (e.type === 'response.output_text.delta')
        streamed.set(e.item_id, (streamed.get(e.item_id) ?? '') + e.delta);
    const last = events.at(-1);
    const output = last?.type === 'response.completed' ? last.response.output : [];
    expect(output.map((o) => o.type === 'message' && o.content)).toEqual([
      [{ type: 'output_text', text: 'both', annotations: [] }],
      [{ type: 'output_text', text: 'both', annotations: [] }],
    ]);
    for (const item of output) expect(streamed.get(item.id ?? '')).toBe('both');
    const whole = await talker.responses.create({ model: 'fan', input: 'both' });
    expect(whole.output_text).toBe('bothboth');
  });

  it("leaves the agent tool's inner words out of a streamed chat completion and an A2A task's artifact", async () => {
    const stream = await talker.chat.completions.create({
      model: 'boss',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Let me check. The final answer.');
    const client = await a2aClient(talk.url, 'boss');
    const task = (await client.sendMessage(sendParams(userMessage('hi')))) as Task;
    expect(task.artifacts).toHaveLength(1);
    const parts = task.artifacts[0]?.parts ?? [];
    expect(parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')).toBe(
      'Let me check. The final answer.',
    );
  });

  it('counts cached tokens inside the prompt tokens of a chat completion, as OpenAI does, adding up to the total', async () => {
    const completion = await talker.chat.completions.create({
      model: 'recaller',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 75,
      completion_tokens: 9,
      total_tokens: 84,
      prompt_tokens_details: { cached_tokens: 30 },
    });
  });
});
