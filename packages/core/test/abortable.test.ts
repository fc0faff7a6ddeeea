import { describe, expect, it } from 'vitest';
import { abortable } from '../src/loop/abortable.js';

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
