import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { ScriptModel } from '../src/offline/script-model.js';

describe('script model fallback turn', () => {
  it('answers every call no other turn takes, again and again, and is never reported unused', async () => {
    const model = new ScriptModel([
      { match: 'refund', text: 'Refunds take 5 days.' },
      { fallback: true, text: 'I route billing questions.' },
    ]);
    const agent = createAgent({ name: 'a', provider: model, model: 'script' });
    expect((await agent.run('hello').result).output).toBe('I route billing questions.');
    expect((await agent.run('anything else').result).output).toBe('I route billing questions.');
    expect(() => model.assertConsumed()).toThrow('1 scripted turn(s) were never used');
    expect((await agent.run('a refund?').result).output).toBe('Refunds take 5 days.');
    expect(() => model.assertConsumed()).not.toThrow();
  });

  it('without a fallback, an unexpected call still fails loudly', async () => {
    const agent = createAgent({
      name: 'a',
      provider: new ScriptModel([{ match: 'refund', text: 'x' }]),
      model: 'script',
    });
    await expect(agent.run('hello').result).rejects.toThrow('no remaining turn matches the user message');
  });
});
