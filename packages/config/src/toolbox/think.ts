import { type AnyTool, defineTool } from '@agentctl/core';

/**
 * The `think` built-in: a scratchpad. The model writes a thought; nothing happens but the
 * thought staying in the conversation, which helps a model plan between tool calls.
 *
 * @example
 * createAgent({ name: 'planner', provider, tools: [think()] });
 */
export function think(): AnyTool {
  return defineTool<{ thought: string }, string>({
    name: 'think',
    description:
      'Write down a thought: plan the next steps, check a result against the goal. Changes nothing and fetches nothing.',
    parameters: {
      type: 'object',
      properties: { thought: { type: 'string', minLength: 1, description: 'The thought' } },
      required: ['thought'],
      additionalProperties: false,
    },
    execute: () => 'noted',
  });
}
