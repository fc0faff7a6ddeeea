import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createAgent, type ModelProvider, Runner } from '../src/index.js';
import { abortable, WaitingAbortController } from '../src/loop/abortable.js';

describe('abortable', () => {
  it('handles the rejection of work started on an already aborted signal (no unhandled rejection)', async () => {
    const controller = new AbortController();
    controller.abort('client gone');
    // Work that sees the aborted signal rejects with its raw reason, as command tools do.
    const work = Promise.reject(controller.signal.reason);
    await expect(abortable(work, controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    let unhandled: unknown;
    const onUnhandled = (reason: unknown) => {
      unhandled = reason;
    };
    process.on('unhandledRejection', onUnhandled);
    await new Promise((r) => setTimeout(r, 20));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toBeUndefined();
  });
});

// Every case holds for a plain controller (whose waits listen on its signal) and for the runner's
// own, which aborts its waits itself.
describe.each([
  ['AbortController', () => new AbortController()],
  ['WaitingAbortController', () => new WaitingAbortController()],
])('abortable, several waits on one signal (%s)', (_name, makeController) => {
  const never = () => new Promise<never>(() => undefined);

  it('rejects every wait in flight when the signal aborts, in the slot and beyond it', async () => {
    const controller = makeController();
    const waits = [never(), never(), never()].map((work) => abortable(work, controller.signal));
    controller.abort('stop');
    for (const wait of waits) await expect(wait).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('settles each wait with its own work, and an abort afterwards touches none of them', async () => {
    const controller = makeController();
    const first = abortable(Promise.resolve(1), controller.signal);
    const second = abortable(Promise.resolve(2), controller.signal);
    await expect(first).resolves.toBe(1);
    await expect(second).resolves.toBe(2);
    // A wait made after the first ones settled takes the freed slot and is still rejected on abort.
    const later = abortable(never(), controller.signal);
    const failed = abortable(Promise.reject(new Error('tool broke')), controller.signal);
    await expect(failed).rejects.toThrow('tool broke');
    controller.abort('stop');
    await expect(later).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('keeps a wait that moved out of the slot: one settled in the slot, the one in the set still aborts', async () => {
    const controller = makeController();
    let finish: (value: string) => void = () => undefined;
    const inSlot = abortable(new Promise<string>((resolve) => (finish = resolve)), controller.signal);
    const inSet = abortable(never(), controller.signal);
    finish('done');
    await expect(inSlot).resolves.toBe('done');
    const reusesSlot = abortable(never(), controller.signal);
    controller.abort('stop');
    await expect(inSet).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(reusesSlot).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe("a runner's own controller", () => {
  it('stops a run whose model ignores its signal, with no listener added to that signal', async () => {
    let seen: AbortSignal | undefined;
    const provider: ModelProvider = {
      name: 'deaf',
      chat: () => new Promise(() => undefined),
      async *stream(params) {
        seen = params.signal;
        await new Promise(() => undefined);
      },
    };
    const run = new Runner({ agent: createAgent({ name: 'a', provider }) }).run({ input: 'hi' });
    while (!seen) await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(seen, 'abort')).toHaveLength(0);
    run.abort('client gone');
    await expect(run.invocation).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen.aborted).toBe(true);
    // Aborting again changes nothing.
    run.abort('twice');
    expect(seen.reason).toBe('client gone');
  });
});
