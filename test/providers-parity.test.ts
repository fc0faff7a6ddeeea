import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  createAgent,
  defineTool,
  emptyCassette,
  type ModelProvider,
  ReplayModel,
  recordingProvider,
  ScriptModel,
} from '../packages/core/src/index.js';
import { createAnthropicProvider } from '../packages/provider-anthropic/src/index.js';
import { anthropicStream } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { createGoogleProvider } from '../packages/provider-google/src/index.js';
import { geminiStream } from '../packages/provider-google/test/support/gemini-wire.js';
import { createOpenAIProvider } from '../packages/provider-openai/src/index.js';
import { openaiText, openaiToolCalls } from '../packages/provider-openai/test/support/openai-wire.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

// One conversation, three sources: the model calls two tools at once, reads the results, answers.
const CALLS = [
  { id: 'call_w', name: 'weather', arguments: { city: 'Oslo' } },
  { id: 'call_t', name: 'local_time', arguments: { city: 'Oslo' } },
];
const ANSWER = 'It is sunny in Oslo and 14:00 there.';

const weather = defineTool<{ city: string }>({
  name: 'weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => `sunny in ${city}`,
});
const localTime = defineTool<{ city: string }>({
  name: 'local_time',
  description: 'Local time in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: () => '14:00',
});

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function runWith(provider: ModelProvider) {
  const agent = createAgent({
    name: 'concierge',
    provider,
    model: 'any-model',
    instruction: 'Answer travel questions.',
    tools: [weather, localTime],
  });
  const handle = agent.run('What is it like in Oslo right now?');
  const events: AgentEvent[] = [];
  for await (const event of handle as AsyncIterable<AgentEvent>) events.push(event);
  return { events, result: await handle };
}

// Streaming splits text differently per source, and tools finish in any order: compare the
// kinds of events in order, one text_delta per run of them, plus what each event is about.
function shape(events: AgentEvent[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    if (event.type === 'text_delta' && out.at(-1) === 'text_delta') continue;
    if (event.type === 'tool_call')
      out.push(`tool_call:${event.call.name}:${JSON.stringify(event.call.arguments)}`);
    else if (event.type === 'tool_result') out.push(`tool_result:${event.name}:${event.content}`);
    else out.push(event.type);
  }
  return out;
}

describe('the same conversation on every provider', () => {
  it('gives the same sequence of agentctl events on the OpenAI, Anthropic and Gemini wires, the replay of the Gemini run and the script model', async () => {
    const openaiServer = await startFakeServer([
      { sse: openaiToolCalls(CALLS, { size: 3 }) },
      { sse: openaiText(ANSWER, { size: 5 }) },
    ]);
    const anthropicServer = await startFakeServer(
      [
        {
          sse: anthropicStream(
            CALLS.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments })),
            { size: 3 },
          ),
        },
        { sse: anthropicStream([{ type: 'text', text: ANSWER }], { size: 5 }) },
      ],
      '',
    );
    const geminiServer = await startFakeServer(
      [
        { sse: geminiStream(CALLS.map((c) => ({ functionCall: { name: c.name, args: c.arguments } }))) },
        { sse: geminiStream([{ text: ANSWER }], { size: 5 }) },
      ],
      '',
    );
    servers.push(openaiServer, anthropicServer, geminiServer);
    const script = new ScriptModel([{ toolCalls: CALLS }, { text: ANSWER }]);

    const viaOpenAI = await runWith(createOpenAIProvider({ apiKey: 'sk-parity', baseURL: openaiServer.url }));
    const viaAnthropic = await runWith(
      createAnthropicProvider({ apiKey: 'sk-ant-parity', baseURL: anthropicServer.url }),
    );
    // The Gemini run is recorded, then replayed by the offline replay model.
    const cassette = emptyCassette();
    const viaGemini = await runWith(
      recordingProvider(createGoogleProvider({ apiKey: 'AIza-parity', baseURL: geminiServer.url }), cassette),
    );
    const replay = new ReplayModel(cassette);
    const viaReplay = await runWith(replay);
    replay.assertConsumed();
    const viaScript = await runWith(script);
    script.assertConsumed();

    const expected = shape(viaScript.events);
    expect(expected).toContain('tool_call:weather:{"city":"Oslo"}');
    expect(expected).toContain('tool_result:local_time:14:00');
    expect(shape(viaOpenAI.events)).toEqual(expected);
    expect(shape(viaAnthropic.events)).toEqual(expected);
    expect(shape(viaGemini.events)).toEqual(expected);
    expect(shape(viaReplay.events)).toEqual(expected);
    for (const run of [viaOpenAI, viaAnthropic, viaGemini, viaReplay, viaScript])
      expect(run.result.output).toBe(ANSWER);

    // Each wire saw the tool results of the first turn in its own format.
    expect(
      openaiServer.requests[1].body.messages.filter((m: { role: string }) => m.role === 'tool'),
    ).toHaveLength(2);
    const lastTurn = anthropicServer.requests[1].body.messages.at(-1);
    expect(lastTurn.content.map((b: { type: string }) => b.type)).toEqual(['tool_result', 'tool_result']);
    const geminiTurn = geminiServer.requests[1].body.contents.at(-1);
    expect(
      geminiTurn.parts.map((p: { functionResponse?: { name: string } }) => p.functionResponse?.name),
    ).toEqual(['weather', 'local_time']);
  });
});
