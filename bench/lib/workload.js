// The shared workload: a zero-latency model that asks for one tool call per step until it has made
// `steps` of them and then answers, a trivial tool, and the hand-written floor loop that runs the
// same workload with no framework. The model is stateless (it reads the step number from the last
// tool result), so many runs can share one model, and it costs O(1) per call at any history length.

/** Counts tool executions, so a benchmark can prove the work happened before it reports. */
export const executions = { count: 0 };

const USAGE = { inputTokens: 1, outputTokens: 1 };

/** The model's answer to a history: the next tool call, or the final text once `steps` calls are done. */
export function respond(messages, steps) {
  const last = messages[messages.length - 1];
  const done = last.role === 'tool' ? Number(last.content) : 0;
  if (done < steps) {
    const n = done + 1;
    return {
      content: null,
      toolCalls: [{ id: `call_${n}`, name: 'step', arguments: { n } }],
      usage: USAGE,
      finishReason: 'tool_calls',
    };
  }
  return { content: 'done', toolCalls: [], usage: USAGE, finishReason: 'stop' };
}

/** A zero-latency model written against agentctl core's public `ModelProvider` interface. */
export function zeroLatencyProvider(steps) {
  return {
    name: 'zero-latency',
    async chat(params) {
      return respond(params.messages, steps);
    },
    async *stream(params) {
      yield { type: 'done', response: respond(params.messages, steps) };
    },
  };
}

/** JSON Schema of the tool's arguments (agentctl validates every call against it). */
export const STEP_PARAMETERS = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 1 } },
  required: ['n'],
  additionalProperties: false,
};

/** The tool body: counts itself and echoes its step number. */
export function stepTool({ n }) {
  executions.count++;
  executions.onExecute?.();
  return n;
}

/**
 * The floor: the same model (same async-iterable stream) and tool driven by a plain async function
 * over an array of messages, with a hand-written argument check in place of a schema validator.
 */
export async function floorRun(prompt, steps, maxSteps = steps + 1) {
  const messages = [{ role: 'user', content: prompt }];
  const toolCalls = [];
  const model = floorModel(steps);
  for (let i = 0; i < maxSteps; i++) {
    let response;
    for await (const event of model.stream({ messages }))
      if (event.type === 'done') response = event.response;
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    if (response.toolCalls.length === 0) return { text: response.content, messages, toolCalls };
    for (const call of response.toolCalls) {
      if (!Number.isInteger(call.arguments.n)) throw new Error(`bad arguments for ${call.name}`);
      const result = await stepTool(call.arguments);
      toolCalls.push({ id: call.id, result });
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: String(result) });
    }
  }
  throw new Error('floor loop reached its step limit');
}

const floorModels = new Map();
function floorModel(steps) {
  let model = floorModels.get(steps);
  if (!model) {
    model = zeroLatencyProvider(steps);
    floorModels.set(steps, model);
  }
  return model;
}
