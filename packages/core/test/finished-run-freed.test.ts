// A finished run must leave nothing behind that a long-lived process keeps: a server or a queue
// worker runs millions of them. Node 20 keeps a signal made by `AbortSignal.any` alive for good
// while it has an `abort` listener and has not aborted, and a run's waits add one that stays: each
// run of `serve` kept its signal, its waits and what they held (~2.5 KiB), never freed.
import { describe, expect, it } from 'vitest';
import { createAgent, linkedSignal, type ModelProvider, Runner } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { heapAfterGc } from './support/heap.js';
import { add } from './support/tools.js';

// WeakRefs are kept until the current job ends: the collection that frees their targets must run
// in a later task than the one that made them.
async function collected(ref: WeakRef<object>): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  heapAfterGc();
  await new Promise((resolve) => setTimeout(resolve, 0));
  heapAfterGc();
  return ref.deref() === undefined;
}

// One run; the signal its model call was given (the run's own), held weakly.
async function runOnce(
  signal: AbortSignal | undefined,
  timeout: number | undefined,
): Promise<WeakRef<AbortSignal>> {
  const script = scriptedModel([
    { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
    { text: 'done' },
  ]);
  let seen: WeakRef<AbortSignal> | undefined;
  const provider: ModelProvider = {
    name: 'watching',
    chat(params) {
      if (params.signal) seen = new WeakRef(params.signal);
      return script.chat(params);
    },
    stream(params) {
      if (params.signal) seen = new WeakRef(params.signal);
      return script.stream(params);
    },
  };
  const agent = createAgent({ name: 'a', provider, tools: [add] });
  const result = await new Runner({ agent }).run({ input: 'add', signal, timeout }).invocation;
  expect(result.output).toBe('done');
  expect(seen).toBeDefined();
  return seen as WeakRef<AbortSignal>;
}

describe('a finished run', () => {
  for (const [title, withSignal, timeout] of [
    ['with a caller signal that outlives it (a server, a worker)', true, undefined],
    ['with a caller signal and a timeout', true, 60_000],
    ['with a timeout alone', false, 60_000],
  ] as const) {
    it(`lets its signal go, ${title}`, async () => {
      const caller = new AbortController();
      const first = await runOnce(withSignal ? caller.signal : undefined, timeout);
      // The latest run's objects are kept on purpose (their shapes outlive a collection): the
      // first run's must be gone after two more.
      for (let i = 0; i < 2; i++) await runOnce(withSignal ? caller.signal : undefined, timeout);
      expect(await collected(first)).toBe(true);
      caller.abort();
    });
  }
});

describe('linkedSignal', () => {
  it('aborts with the first source that aborts, with its reason, and stops listening after', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal([a.signal, undefined, b.signal]);
    expect(linked.signal.aborted).toBe(false);
    b.abort('b first');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('b first');
    a.abort('a later');
    expect(linked.signal.reason).toBe('b first');
  });

  it('is aborted at once by a source that has aborted', () => {
    const a = new AbortController();
    a.abort('early');
    const linked = linkedSignal([new AbortController().signal, a.signal]);
    expect(linked.signal.reason).toBe('early');
  });

  it('no longer aborts once disposed, and is freed while its sources live on', async () => {
    const a = new AbortController();
    const ref = disposedLink(a.signal);
    a.abort();
    expect(ref.deref()?.aborted ?? false).toBe(false);
    expect(await collected(ref)).toBe(true);
  });
});

// A linked signal with a listener that never fires, disposed: held weakly only.
function disposedLink(source: AbortSignal): WeakRef<AbortSignal> {
  const linked = linkedSignal([source]);
  linked.signal.addEventListener('abort', () => undefined, { once: true });
  linked.dispose();
  return new WeakRef(linked.signal);
}
