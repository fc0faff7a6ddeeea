import { createAgent, defineTool, InMemorySessionStore, Runner } from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { expect, it } from 'vitest';
import { invoke } from '../src/commands/run/index.js';
import type { Io } from '../src/io.js';

it('a run held up past its lease, whose session another run took, fails (exit 1) saying so, not as a Ctrl-C', async () => {
  const store = new InMemorySessionStore();
  const stall = defineTool({
    name: 'stall',
    description: 'holds the event loop past the lease, as a stopped process would',
    parameters: {},
    execute: async () => {
      const until = Date.now() + 200;
      while (Date.now() < until) {
        // busy wait: no timer (and so no renewal) runs
      }
      await store.lease('s', { holder: 'another run', ttlMs: 10_000 });
      return 'done';
    },
  });
  const agent = createAgent({
    name: 'a',
    provider: scriptedModel([{ toolCalls: [{ name: 'stall' }] }, { text: 'never' }]),
    tools: [stall],
  });
  const errors: string[] = [];
  const io = {
    stdout: () => undefined,
    stderr: (text: string) => errors.push(text),
    isTTY: false,
  } as unknown as Io;
  const runner = new Runner({ agent, store, leaseTtlMs: 90 });
  const code = await invoke(runner, { input: 'x' }, 's', { agent: 'a', session: 's' }, io, undefined);
  expect(code).toBe(1);
  expect(errors.join('')).toContain(
    'agentctl: session s went on without this run, which was held up past its lease',
  );
});
