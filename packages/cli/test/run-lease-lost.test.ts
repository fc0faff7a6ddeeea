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

it('with --json, a run whose lease is taken as it ends prints one run_end, an error, and never "complete"', async () => {
  const store = new InMemorySessionStore();
  const agent = createAgent({
    name: 'a',
    provider: {
      name: 'stalling',
      // The answer comes after a stall past the lease, which another run takes meanwhile.
      async chat() {
        const until = Date.now() + 200;
        while (Date.now() < until) {
          // busy wait: no timer (and so no renewal) runs
        }
        await store.lease('s', { holder: 'another run', ttlMs: 10_000 });
        return {
          content: 'done',
          toolCalls: [],
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'stop',
        };
      },
      async *stream(params) {
        yield { type: 'done' as const, response: await this.chat(params) };
      },
    },
  });
  const out: string[] = [];
  const errors: string[] = [];
  const io = {
    stdout: (text: string) => out.push(text),
    stderr: (text: string) => errors.push(text),
    isTTY: false,
  } as unknown as Io;
  const runner = new Runner({ agent, store, leaseTtlMs: 90 });
  const code = await invoke(
    runner,
    { input: 'x' },
    's',
    { agent: 'a', session: 's', json: true },
    io,
    undefined,
  );
  expect(code).toBe(1);
  const events = out
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; status?: string });
  expect(events.filter((e) => e.type === 'run_end')).toEqual([expect.objectContaining({ status: 'error' })]);
  expect(events.at(-1)?.type).toBe('run_end');
  expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
  expect(errors.join('')).toContain('went on without this run');
});
