import { describe, expect, it } from 'vitest';
import { createAgent, defineTool, InMemorySessionStore, Runner } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

function writer(values: Record<string, unknown>) {
  const set = defineTool({
    name: 'set',
    description: 'writes state',
    parameters: {},
    execute: (_a, ctx) => {
      for (const [key, value] of Object.entries(values)) ctx.state.set(key, value);
      return 'ok';
    },
  });
  return createAgent({
    name: 'w',
    provider: scriptedModel([{ toolCalls: [{ name: 'set' }] }, { text: 'set' }]),
    tools: [set],
  });
}

// Each reader answers differently: a script continuing a conversation skips turns it already answered.
function reader(seen: string[]) {
  return createAgent({
    name: 'r',
    provider: scriptedModel([{ text: `read ${seen.length}` }]),
    instruction: ({ state }) => {
      seen.push(`${String(state['app:theme'])}|${String(state['user:lang'])}|${String(state.local)}`);
      return 'read';
    },
  });
}

describe('state scopes', () => {
  it('app: keys are shared by every session, user: keys by one user, plain keys stay in their session', async () => {
    const store = new InMemorySessionStore();
    await new Runner({ agent: writer({ 'app:theme': 'dark', 'user:lang': 'fr', local: 1 }), store }).run({
      input: 'go',
      sessionId: 'one',
      userId: 'ada',
    }).invocation;
    const seen: string[] = [];
    await new Runner({ agent: reader(seen), store }).run({ input: 'x', sessionId: 'two', userId: 'ada' })
      .invocation;
    await new Runner({ agent: reader(seen), store }).run({ input: 'x', sessionId: 'three', userId: 'bob' })
      .invocation;
    expect(seen).toEqual(['dark|fr|undefined', 'dark|undefined|undefined']);
    expect(await store.getScopedState('app')).toEqual({ 'app:theme': 'dark' });
    expect(await store.getScopedState('user:ada')).toEqual({ 'user:lang': 'fr' });
  });

  it('a later write to a shared key is seen by an older session on its next message', async () => {
    const store = new InMemorySessionStore();
    const seen: string[] = [];
    await new Runner({ agent: reader(seen), store }).run({ input: 'x', sessionId: 'old' }).invocation;
    await new Runner({ agent: writer({ 'app:theme': 'light' }), store }).run({
      input: 'go',
      sessionId: 'new',
    }).invocation;
    await new Runner({ agent: reader(seen), store }).run({ input: 'x', sessionId: 'old' }).invocation;
    expect(seen).toEqual(['undefined|undefined|undefined', 'light|undefined|undefined']);
  });
});
