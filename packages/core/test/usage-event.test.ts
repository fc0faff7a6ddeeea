import { describe, expect, it } from 'vitest';
import { type AgentEvent, createAgent, offline } from '../src/index.js';

async function usageEvents(run: AsyncIterable<AgentEvent>) {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events.flatMap((e) => (e.type === 'usage' ? [e] : []));
}

describe('the usage event of a model call', () => {
  it('names the model that answered and how long the call took', async () => {
    // Four words 25 ms apart: the call cannot take less than 75 ms.
    const agent = createAgent({
      name: 'slow',
      model: 'echo-slow',
      provider: offline('echo', { delayMs: 25 }),
    });
    const [usage, ...rest] = await usageEvents(agent.run('one two three four'));
    expect(rest).toEqual([]);
    expect(usage.model).toBe('echo-slow');
    expect(usage.duration).toBeGreaterThanOrEqual(75);
    expect(Number.isInteger(usage.duration)).toBe(true);
  });

  it('names the model even when the agent has none of its own (the provider default)', async () => {
    const agent = createAgent({ name: 'quick', provider: offline('echo') });
    const [usage] = await usageEvents(agent.run('hi'));
    expect(typeof usage.model).toBe('string');
    expect(usage.model.length).toBeGreaterThan(0);
    expect(usage.duration).toBeGreaterThanOrEqual(0);
  });
});
