// The same tool-loop workload on peer frameworks, with zero-latency fake models written against each
// one's public model interface: the Vercel AI SDK 6 and 7 (`ai`, a LanguageModelV3 object),
// `@openai/agents-core` (its `Model` interface) and `@google/adk` (a `BaseLlm` subclass). The peers
// live in bench/peers (installed with `npm install --prefix bench/peers`, outside the pnpm
// workspace). Each peer is loaded only by `loadPeer(key)`, in the child process that measures it, so
// its libraries never weigh on another subject's heap or RSS.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stepTool } from './workload.js';

const peersDir = fileURLToPath(new URL('../peers/', import.meta.url));
const require = createRequire(`${peersDir}package.json`);
const versionOf = (name) =>
  JSON.parse(readFileSync(`${peersDir}node_modules/${name}/package.json`, 'utf8')).version;

/** The peer subjects, in table order: key -> the npm package (as installed in bench/peers) it measures. */
export const PEERS = {
  ai7: 'ai7',
  ai6: 'ai',
  openai: '@openai/agents-core',
  adk: '@google/adk',
};

/** The peers that can be measured here, and for each one that cannot, why. */
export function availablePeers() {
  const keys = [];
  const skipped = [];
  for (const [key, name] of Object.entries(PEERS)) {
    if (existsSync(`${peersDir}node_modules/${name}/package.json`)) keys.push(key);
    else skipped.push(`${name} not installed (npm install --prefix bench/peers)`);
  }
  return { keys, skipped };
}

/** Loads one peer subject `{ label, run(steps) }`; call it only in the process that measures it. */
export async function loadPeer(key) {
  const { z } = require('zod');
  if (key === 'ai6' || key === 'ai7') {
    const name = PEERS[key];
    return aiSubject(require(name), z, versionOf(name));
  }
  if (key === 'openai') return openaiSubject(require('@openai/agents-core'), z, versionOf(PEERS.openai));
  if (key === 'adk') {
    // ESM only in practice: its CommonJS build pulls optional peers eagerly.
    const entry = pathToFileURL(`${peersDir}node_modules/@google/adk/dist/esm/index.js`).href;
    return adkSubject(await import(entry), z, versionOf(PEERS.adk));
  }
  throw new Error(`unknown peer ${key}`);
}

function check(label, text, toolCalls, steps) {
  if (text !== 'done' || toolCalls !== steps) {
    throw new Error(`${label}: expected ${steps} tool calls and "done", got ${toolCalls} and ${text}`);
  }
}

// The step the conversation is at: the number in the last tool result (O(1) at any length).
const stepOf = (result) => Number(/\d+/.exec(JSON.stringify(result))?.[0] ?? 0);

function aiSubject(ai, z, version) {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  const models = new Map();
  const modelFor = (steps) => {
    if (models.has(steps)) return models.get(steps);
    const model = {
      specificationVersion: 'v3',
      provider: 'bench',
      modelId: 'zero-latency',
      supportedUrls: {},
      async doGenerate({ prompt }) {
        const last = prompt[prompt.length - 1];
        const done = last.role === 'tool' ? stepOf(last.content[last.content.length - 1].output) : 0;
        if (done < steps) {
          const n = done + 1;
          return {
            content: [
              { type: 'tool-call', toolCallId: `call_${n}`, toolName: 'step', input: JSON.stringify({ n }) },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
      async doStream() {
        throw new Error('the benchmark calls generateText only');
      },
    };
    models.set(steps, model);
    return model;
  };
  const tools = {
    step: ai.tool({
      description: 'Counts one step of the benchmark',
      inputSchema: z.object({ n: z.number().int().min(1) }).strict(),
      execute: async (input) => stepTool(input),
    }),
  };
  return {
    label: `AI SDK ${version}`,
    async run(steps) {
      const result = await ai.generateText({
        model: modelFor(steps),
        tools,
        stopWhen: ai.stepCountIs(steps + 1),
        prompt: 'go',
      });
      const calls = result.steps.reduce((sum, step) => sum + step.toolResults.length, 0);
      check('ai', result.text, calls, steps);
      return result;
    },
  };
}

function openaiSubject(agents, z, version) {
  const usage = () => new agents.Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
  class ZeroLatencyModel {
    constructor(steps) {
      this.steps = steps;
    }
    async getResponse(request) {
      const input = request.input;
      const last = Array.isArray(input) ? input[input.length - 1] : undefined;
      const done = last?.type === 'function_call_result' ? stepOf(last.output) : 0;
      if (done < this.steps) {
        const n = done + 1;
        return {
          usage: usage(),
          output: [
            {
              type: 'function_call',
              callId: `call_${n}`,
              name: 'step',
              arguments: JSON.stringify({ n }),
              status: 'completed',
            },
          ],
        };
      }
      return {
        usage: usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'done' }],
          },
        ],
      };
    }
    // biome-ignore lint/correctness/useYield: the benchmark never streams; the interface requires the method.
    async *getStreamedResponse() {
      throw new Error('the benchmark runs without streaming');
    }
  }
  const step = agents.tool({
    name: 'step',
    description: 'Counts one step of the benchmark',
    parameters: z.object({ n: z.number().int().min(1) }).strict(),
    execute: async (input) => String(stepTool(input)),
  });
  const agentsBySteps = new Map();
  const agentFor = (steps) => {
    if (!agentsBySteps.has(steps)) {
      agentsBySteps.set(
        steps,
        new agents.Agent({
          name: 'bench',
          instructions: '',
          model: new ZeroLatencyModel(steps),
          tools: [step],
        }),
      );
    }
    return agentsBySteps.get(steps);
  };
  // Tracing off: the comparison is the loop, and agentctl does not trace either.
  const runner = new agents.Runner({ tracingDisabled: true });
  return {
    label: `OpenAI Agents ${version}`,
    async run(steps) {
      const result = await runner.run(agentFor(steps), 'go', { maxTurns: steps + 2 });
      const calls = result.newItems.filter((item) => item.type === 'tool_call_output_item').length;
      check('@openai/agents-core', result.finalOutput, calls, steps);
      return result;
    },
  };
}

function adkSubject(adk, z, version) {
  class ZeroLatencyLlm extends adk.BaseLlm {
    constructor(steps) {
      super({ model: 'zero-latency' });
      this.steps = steps;
    }
    async *generateContentAsync(request) {
      const last = request.contents[request.contents.length - 1];
      const response = last?.parts?.find((part) => part.functionResponse)?.functionResponse;
      const done = response ? stepOf(response.response) : 0;
      if (done < this.steps) {
        const n = done + 1;
        yield {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: `call_${n}`, name: 'step', args: { n } } }],
          },
        };
        return;
      }
      yield { content: { role: 'model', parts: [{ text: 'done' }] } };
    }
    async connect() {
      throw new Error('the benchmark does not use live connections');
    }
  }
  const step = new adk.FunctionTool({
    name: 'step',
    description: 'Counts one step of the benchmark',
    parameters: z.object({ n: z.number().int().min(1) }).strict(),
    execute: async (input) => stepTool(input),
  });
  const runners = new Map();
  const runnerFor = (steps) => {
    if (!runners.has(steps)) {
      const agent = new adk.LlmAgent({
        name: 'bench',
        instruction: '',
        model: new ZeroLatencyLlm(steps),
        tools: [step],
      });
      runners.set(steps, new adk.InMemoryRunner({ agent, appName: 'bench' }));
    }
    return runners.get(steps);
  };
  const message = { role: 'user', parts: [{ text: 'go' }] };
  return {
    label: `Google ADK ${version}`,
    async run(steps) {
      let calls = 0;
      let text;
      const events = [];
      for await (const event of runnerFor(steps).runEphemeral({
        userId: 'bench',
        newMessage: message,
        runConfig: { maxLlmCalls: steps + 2 },
      })) {
        events.push(event);
        for (const part of event.content?.parts ?? []) {
          if (part.functionResponse) calls++;
          if (part.text) text = part.text;
        }
      }
      check('@google/adk', text, calls, steps);
      return events;
    },
  };
}
