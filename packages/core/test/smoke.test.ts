import { describe, expect, it } from 'vitest';
import { createAgent, defineTool, offline } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

describe('smoke', () => {
  it('echo answers from the input', async () => {
    const agent = createAgent({ name: 'hello', provider: offline('echo') });
    const events: string[] = [];
    const run = agent.run('hi there');
    for await (const e of run) events.push(e.type);
    const result = await run;
    expect(result.output).toBe('hi there');
    expect(events[0]).toBe('run_start');
    expect(events.at(-1)).toBe('run_end');
  });
  it('runs a tool', async () => {
    const add = defineTool<{ a: number; b: number }>({
      name: 'add',
      description: 'adds',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      execute: ({ a, b }) => a + b,
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'three' }]);
    const result = await createAgent({ name: 'calc', provider: model, tools: [add] }).run('1+2');
    expect(result.toolCalls[0].result).toBe(3);
    expect(result.output).toBe('three');
    model.assertConsumed();
  });
});
