import { describe, expect, it } from 'vitest';
import { type AgentEvent, createAgent, defineTool, InMemorySessionStore, Runner } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

// An event as `type` or, for a message, `role:tool call ids`.
const shown = (e: AgentEvent): string =>
  e.type === 'message'
    ? `${e.message.role}:${(e.message.toolCalls ?? []).map((c) => c.id).join(',')}`
    : e.type;

// What the store held when the tool ran.
function agentWithProbe(store: InMemorySessionStore, seen: string[][]) {
  const probe = defineTool({
    name: 'probe',
    description: 'reads the stored session',
    parameters: {},
    execute: async () => {
      const session = await store.get('s');
      seen.push((session?.events ?? []).map(shown));
      return 'ok';
    },
  });
  return createAgent({
    name: 'a',
    provider: scriptedModel([
      { toolCalls: [{ name: 'probe', arguments: {}, id: 'c1' }] },
      { toolCalls: [{ name: 'probe', arguments: {}, id: 'c2' }] },
      { text: 'done' },
    ]),
    tools: [probe],
  });
}

describe('Runner writeBeforeTools', () => {
  it("has the store hold the model's calls (and all before them) before each step's tools run", async () => {
    const store = new InMemorySessionStore();
    const seen: string[][] = [];
    const runner = new Runner({ agent: agentWithProbe(store, seen), store, writeBeforeTools: true });
    const result = await runner.run({ input: 'go', sessionId: 's' }).invocation;
    expect(result.output).toBe('done');
    expect(seen).toHaveLength(2);
    // The assistant message calling the tool is stored by the time the tool runs, each step.
    expect(seen[0]).toEqual(['run_start', 'user:', 'agent_start', 'usage', 'assistant:c1']);
    expect(seen[1]?.slice(5)).toEqual(['tool_call', 'tool_result', 'tool:', 'usage', 'assistant:c2']);
    const stored = (await store.get('s'))?.events ?? [];
    const calls = stored.filter((e) => e.type === 'message' && e.message.role === 'assistant');
    expect(calls).toHaveLength(3);
  });

  it('fails the run before its tools run when the write fails, and says why', async () => {
    const store = new InMemorySessionStore();
    const seen: string[][] = [];
    const runner = new Runner({ agent: agentWithProbe(store, seen), store, writeBeforeTools: true });
    await store.create({ id: 's' });
    store.append = async () => {
      throw new Error('disk full');
    };
    await expect(runner.run({ input: 'go', sessionId: 's' }).invocation).rejects.toThrow('disk full');
    expect(seen).toEqual([]);
  });
});
