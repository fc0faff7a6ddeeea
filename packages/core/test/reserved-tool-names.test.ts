import { describe, expect, it } from 'vitest';
import { createAgent, defineTool, EXIT_LOOP_TOOL, TRANSFER_TOOL, UsageError } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

// The runtime's own tools would hide an agent's tool of the same name: its calls would transfer
// (or end a loop) instead of running it.
describe('reserved tool names', () => {
  it.each([TRANSFER_TOOL, EXIT_LOOP_TOOL])('an agent may not have a tool named %s', (name) => {
    const tool = defineTool({ name, description: 'mine', parameters: {}, execute: () => 'ran' });
    expect(() => createAgent({ name: 'a', provider: scriptedModel([]), tools: [tool] })).toThrow(UsageError);
    expect(() => createAgent({ name: 'a', provider: scriptedModel([]), tools: [tool] })).toThrow(
      `agent a: a tool may not be named \`${name}\``,
    );
  });
});
