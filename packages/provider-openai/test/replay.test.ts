import {
  type AgentEvent,
  type Cassette,
  createAgent,
  defineTool,
  emptyCassette,
  type ModelProvider,
  ReplayModel,
  recordingProvider,
} from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { fakeServers } from '../../../test/support/wire-harness.js';
import { createOpenAIProvider } from '../src/index.js';
import { openaiText, openaiToolCalls } from './support/openai-wire.js';

const KEY = 'sk-replay-secret-000111222';
const start = fakeServers('/v1');

const weather = defineTool<{ city: string }>({
  name: 'weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => ({ city, sky: 'clear' }),
});

async function run(provider: ModelProvider, input: string) {
  const agent = createAgent({
    name: 'forecaster',
    provider,
    model: 'gpt-test',
    tools: [weather],
    instruction: 'Answer briefly.',
  });
  const handle = agent.run(input);
  const types: string[] = [];
  for await (const event of handle as AsyncIterable<AgentEvent>) types.push(event.type);
  return { result: await handle, types };
}

describe('record on the OpenAI wire, replay offline', () => {
  it('replays the recorded run with the same output and no network', async () => {
    const server = await start([
      sse(openaiToolCalls([{ id: 'call_live_1', name: 'weather', arguments: { city: 'Oslo' } }])),
      sse(openaiText('Clear skies in Oslo.')),
    ]);
    const cassette = emptyCassette();
    const live = await run(
      recordingProvider(createOpenAIProvider({ apiKey: KEY, baseURL: server.url }), cassette),
      'Oslo?',
    );
    expect(live.result.output).toBe('Clear skies in Oslo.');
    await server.close();

    const text = JSON.stringify(cassette);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('127.0.0.1');
    const replay = new ReplayModel(JSON.parse(text) as Cassette, { source: 'oslo.cassette.yaml' });
    const replayed = await run(replay, 'Oslo?');
    expect(replayed.result.output).toBe(live.result.output);
    expect(replayed.result.toolCalls.map((c) => c.arguments)).toEqual([{ city: 'Oslo' }]);
    expect(collapse(replayed.types)).toEqual(collapse(live.types));
    replay.assertConsumed();
  });

  it('fails with a diff naming the field when the agent drifts', async () => {
    const server = await start([sse(openaiText('Hello!'))]);
    const cassette = emptyCassette();
    await run(
      recordingProvider(createOpenAIProvider({ apiKey: KEY, baseURL: server.url }), cassette),
      'hello',
    );
    const replay = new ReplayModel(cassette, { source: 'hello.cassette.yaml' });
    const agent = createAgent({
      name: 'forecaster',
      provider: replay,
      model: 'gpt-test',
      tools: [weather],
      instruction: 'Answer at length.',
    });
    await expect(agent.run('hello')).rejects.toThrow(
      'system: expected "Answer briefly.", got "Answer at length."',
    );
  });
});

// Streaming splits text differently live and in replay; the sequence of kinds is what must match.
function collapse(types: string[]): string[] {
  return types.filter((t, i) => t !== 'text_delta' || types[i - 1] !== 'text_delta');
}
