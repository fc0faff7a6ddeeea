import { describe, expect, it, vi } from 'vitest';
import { backoffDelay, deadline, retryPolicy, sleep } from '../src/index.js';
import { MAX_TIMER_MS } from '../src/timing/deadline.js';

describe('timing helpers', () => {
  it('deadline aborts with its reason after ms and says it expired', async () => {
    const limit = deadline(undefined, 10, () => new Error('late'));
    await new Promise<void>((resolve) => limit.signal.addEventListener('abort', () => resolve()));
    expect(limit.expired).toBe(true);
    expect((limit.signal.reason as Error).message).toBe('late');
    limit.dispose();
  });

  it('deadline forwards the outer abort and is the outer signal itself without ms', () => {
    const outer = new AbortController();
    expect(deadline(outer.signal, undefined, () => 'x').signal).toBe(outer.signal);
    const limit = deadline(outer.signal, 10_000, () => 'x');
    outer.abort('stop');
    expect(limit.signal.reason).toBe('stop');
    expect(limit.expired).toBe(false);
    limit.dispose();
  });

  it('startWhenUsed makes no timer until used, then counts from its creation', async () => {
    const before = process.getActiveResourcesInfo().filter((k) => k === 'Timeout').length;
    const limit = deadline(undefined, 30, () => new Error('late'), { startWhenUsed: true });
    expect(process.getActiveResourcesInfo().filter((k) => k === 'Timeout').length).toBe(before);
    await sleep(40);
    // Unused, it never expired; raced now, the time already spent counts, so it fails at once.
    expect(limit.expired).toBe(false);
    await expect(limit.race(new Promise(() => undefined))).rejects.toThrow('late');
    expect(limit.expired).toBe(true);
    expect((limit.signal.reason as Error).message).toBe('late');
    limit.dispose();
  });

  it('race settles with the work, or rejects with the reason once the time is up', async () => {
    const quick = deadline(undefined, 1_000, () => new Error('late'));
    await expect(quick.race(Promise.resolve('done'))).resolves.toBe('done');
    quick.dispose();
    const slow = deadline(undefined, 10, () => new Error('late'));
    await expect(slow.race(new Promise(() => undefined))).rejects.toThrow('late');
    slow.dispose();
  });

  it('restart pushes an idle deadline back', async () => {
    const limit = deadline(undefined, 40, () => 'idle');
    for (let i = 0; i < 4; i++) {
      await sleep(20);
      limit.restart();
    }
    expect(limit.signal.aborted).toBe(false);
    limit.dispose();
  });

  it('a deadline or sleep longer than one timer holds waits all of it', async () => {
    vi.useFakeTimers();
    try {
      const long = MAX_TIMER_MS + 60_000;
      const limit = deadline(undefined, long, () => new Error('late'));
      let slept = false;
      void sleep(long).then(() => {
        slept = true;
      });
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
      expect([limit.expired, slept]).toEqual([false, false]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect([limit.expired, slept]).toEqual([true, true]);
      limit.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('sleep rejects with ABORTED when its signal aborts mid-wait', async () => {
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('backoff doubles its ceiling, honours Retry-After and gives up beyond maxDelay', () => {
    const policy = retryPolicy({ initialDelayMs: 100, maxDelayMs: 1000 });
    expect(backoffDelay(policy, 3, undefined, () => 0.999)).toBe(399);
    expect(backoffDelay(policy, 10, undefined, () => 0.999)).toBe(999);
    expect(backoffDelay(policy, 1, 250)).toBe(250);
    expect(backoffDelay(policy, 1, 5000)).toBeUndefined();
  });
});
