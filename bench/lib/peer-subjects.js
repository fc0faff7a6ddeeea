// The same tool-loop workload on peer frameworks, with zero-latency fake models written against each
// one's public model interface: the Vercel AI SDK (`ai`, LanguageModelV3) and `@openai/agents-core`
// (its `Model` interface). The peers live in bench/peers (installed with
// `npm install --prefix bench/peers`, outside the pnpm workspace); without them this exports no
// subjects and `skipped` says why.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { stepTool } from './workload.js';

const peersDir = fileURLToPath(new URL('../peers/', import.meta.url));

/** Why the peers are not benchmarked, or undefined when they are. */
export let skipped;
/** Peer subjects keyed like SUBJECTS in subjects.js, each `{ label, run(steps) }`. */
export const PEER_SUBJECTS = {};

function load() {
  if (!existsSync(`${peersDir}node_modules`)) {
    skipped = 'peers not installed (npm install --prefix bench/peers)';
    return;
  }
  const require = createRequire(`${peersDir}package.json`);
  try {
    const ai = require('ai');
    const { z } = require('zod');
    const version = require('ai/package.json').version;
    PEER_SUBJECTS.ai = aiSubject(ai, z, version);
  } catch (error) {
    skipped = `ai: ${error.message}`;
  }
  try {
    const agents = require('@openai/agents-core');
    const { z } = require('zod');
    const version = JSON.parse(
      readFileSync(`${peersDir}node_modules/@openai/agents-core/package.json`, 'utf8'),
    ).version;
    PEER_SUBJECTS.openai = openaiSubject(agents, z, version);
  } catch (error) {
    skipped = `${skipped ? `${skipped}; ` : ''}@openai/agents-core: ${error.message}`;
  }
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
    label: `Vercel AI SDK ${version} generateText`,
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
    label: `OpenAI Agents core ${version} run`,
    async run(steps) {
      const result = await runner.run(agentFor(steps), 'go', { maxTurns: steps + 2 });
      const calls = result.newItems.filter((item) => item.type === 'tool_call_output_item').length;
      check('@openai/agents-core', result.finalOutput, calls, steps);
      return result;
    },
  };
}

load();
