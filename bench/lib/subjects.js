// The agentctl ways of running the workload that the benchmarks compare: `agent.run()` (awaited for
// its result) and `Runner` (a fresh runner and in-memory store per run, every event iterated with
// `for await`, as `agentctl serve` streams them; `agentctl run` renders them through `onEvent`
// instead and never iterates the stream, which costs less: this subject is the dearer of the two).
import { loadCore } from './core.js';
import { STEP_PARAMETERS, stepTool, zeroLatencyProvider } from './workload.js';

const { createAgent, defineTool, Runner } = await loadCore();

const agents = new Map();

/** One agent per step count (its iteration limit must allow steps + 1 model calls). */
export function agentFor(steps) {
  let agent = agents.get(steps);
  if (!agent) {
    const step = defineTool({
      name: 'step',
      description: 'Counts one step of the benchmark',
      parameters: STEP_PARAMETERS,
      execute: stepTool,
    });
    agent = createAgent({
      name: 'bench',
      provider: zeroLatencyProvider(steps),
      tools: [step],
      maxIterations: steps + 1,
    });
    agents.set(steps, agent);
  }
  return agent;
}

function check(text, toolCalls, steps, subject) {
  if (text !== 'done' || toolCalls !== steps) {
    throw new Error(`${subject}: expected ${steps} tool calls and "done", got ${toolCalls} and ${text}`);
  }
}

/** Each subject runs one conversation of `steps` tool calls and checks its outcome. */
export const SUBJECTS = {
  agent: {
    label: 'agentctl agent.run',
    async run(steps) {
      const result = await agentFor(steps).run('go');
      check(result.text, result.toolCalls.length, steps, 'agent.run');
      return result;
    },
  },
  runner: {
    label: 'agentctl Runner',
    async run(steps) {
      const runner = new Runner({ agent: agentFor(steps) });
      const run = runner.run({ input: 'go' });
      let toolResults = 0;
      for await (const event of run) if (event.type === 'tool_result' && !event.isError) toolResults++;
      const result = await run.invocation;
      check(result.output, toolResults, steps, 'Runner');
      // The result, as every other subject returns its result: not the runner, whose in-memory
      // store would keep the whole session of every finished run alive until the batch ends.
      return result;
    },
  },
};
