import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type Cassette,
  createAgent,
  defineTool,
  emptyCassette,
  normaliseRequest,
  OFFLINE_MODES,
  offline,
  ReplayModel,
  recordingProvider,
  ScriptModel,
} from '../src/index.js';

const lookup = defineTool<{ city: string }>({
  name: 'lookup',
  description: 'Looks up the weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => `sunny in ${city}`,
});

function script() {
  return new ScriptModel([
    { toolCalls: [{ name: 'lookup', arguments: { city: 'Oslo' } }] },
    { text: 'It is sunny in Oslo.' },
  ]);
}

async function run(
  provider: ScriptModel | ReplayModel | ReturnType<typeof recordingProvider>,
  input: string,
) {
  const agent = createAgent({
    name: 'weather',
    provider,
    tools: [lookup],
    instruction: 'Be brief.',
    model: 'm1',
  });
  const types: string[] = [];
  const handle = agent.run(input);
  for await (const event of handle as AsyncIterable<AgentEvent>) types.push(event.type);
  return { result: await handle, types };
}

describe('record and replay', () => {
  it('replays a recorded run offline with the same output and events', async () => {
    const cassette = emptyCassette();
    const recorded = await run(recordingProvider(script(), cassette), 'weather in Oslo?');
    expect(cassette.interactions).toHaveLength(2);
    // The cassette is plain JSON: it survives a round trip unchanged.
    const stored = JSON.parse(JSON.stringify(cassette)) as Cassette;
    const replay = new ReplayModel(stored, { source: 'weather.yaml' });
    const replayed = await run(replay, 'weather in Oslo?');
    expect(replayed.result.output).toBe('It is sunny in Oslo.');
    expect(replayed.result.output).toBe(recorded.result.output);
    expect(replayed.types).toEqual(recorded.types);
    replay.assertConsumed();
  });

  it('fails with a diff naming the drifted field', async () => {
    const cassette = emptyCassette();
    await run(recordingProvider(script(), cassette), 'weather in Oslo?');
    const replay = new ReplayModel(cassette, { source: 'weather.yaml' });
    const drifted = await run(replay, 'weather in Bergen?').then(
      () => undefined,
      (error: Error) => error,
    );
    expect(drifted?.message).toContain('replay weather.yaml');
    expect(drifted?.message).toContain(
      'messages[0].content: expected "weather in Oslo?", got "weather in Bergen?"',
    );
    expect(drifted).toMatchObject({ code: 'MODEL_ERROR' });
  });

  it('fails when the agent asks more than was recorded, and when it asks less', async () => {
    const replay = new ReplayModel(emptyCassette());
    await expect(replay.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(
      /unexpected model call #1/,
    );
    const cassette = emptyCassette();
    await run(recordingProvider(script(), cassette), 'weather in Oslo?');
    expect(() => new ReplayModel(cassette).assertConsumed()).toThrow(
      /2 recorded interaction\(s\) were never requested/,
    );
  });

  it('normalises ids away and keeps no secrets or signals', () => {
    const request = (id: string) =>
      normaliseRequest({
        model: 'gpt',
        messages: [
          { role: 'user', content: 'q' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id, name: 'lookup', arguments: { city: 'Oslo' } }],
          },
          { role: 'tool', content: 'sunny', toolCallId: id, name: 'lookup' },
        ],
        signal: new AbortController().signal,
        temperature: 0.3,
        options: { apiKey: 'sk-secret' },
      });
    expect(request('call_abc')).toEqual(request('toolu_xyz'));
    expect(request('call_abc').messages[2].toolCallId).toBe('call_1');
    expect(JSON.stringify(request('x'))).not.toContain('sk-secret');
    expect(request('x')).not.toHaveProperty('temperature');
  });

  it("offline('replay') stands in for the recorded model: the model id is compared only on request", async () => {
    expect(OFFLINE_MODES).toContain('replay');
    const cassette = emptyCassette();
    await run(recordingProvider(script(), cassette), 'weather in Oslo?');
    const replayed = JSON.parse(JSON.stringify(cassette)) as Cassette;
    for (const i of replayed.interactions) i.request.model = 'gpt-4.1-mini';
    const agent = (provider: ReturnType<typeof offline>) =>
      createAgent({ name: 'weather', provider, tools: [lookup], instruction: 'Be brief.', model: 'replay' });
    const loose = await agent(offline('replay', { cassette: replayed })).run('weather in Oslo?').result;
    expect(loose.text).toBe('It is sunny in Oslo.');
    const strict = offline('replay', { cassette: replayed, matchModel: true, source: 'c.yaml' });
    await expect(
      strict.chat({ model: 'replay', messages: [{ role: 'user', content: 'weather in Oslo?' }] }),
    ).rejects.toThrow(
      /replay c\.yaml: model call #1 does not match[\s\S]*model: expected "gpt-4\.1-mini", got "replay"/,
    );
  });

  it('rejects something that is not a cassette', () => {
    expect(
      () => new ReplayModel({ interactions: 'no' } as unknown as Cassette, { source: 'bad.yaml' }),
    ).toThrow(/replay bad.yaml: not a cassette/);
  });
});

describe('ReplayModel usage', () => {
  // A cassette edited by hand: counts left out replay as 0, and no counts at all as unreported.
  async function usageOf(usage: unknown) {
    const request = normaliseRequest({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] });
    const cassette = {
      version: 1,
      interactions: [{ request, response: { content: 'hello', toolCalls: [], usage } }],
    } as unknown as Cassette;
    const response = await new ReplayModel(cassette).chat({
      model: 'm1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    return response.usage;
  }

  it('replays recorded counts, a missing one as 0', async () => {
    expect(await usageOf({ inputTokens: 4 })).toEqual({
      inputTokens: 4,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it('replays a call with no counts, or marked so, as one whose usage was not reported', async () => {
    expect((await usageOf({})).unreported).toBe(true);
    expect((await usageOf(undefined)).unreported).toBe(true);
    expect((await usageOf({ inputTokens: 0, outputTokens: 0, unreported: true })).unreported).toBe(true);
    expect((await usageOf({ unreported: false })).unreported).toBeUndefined();
  });
});
