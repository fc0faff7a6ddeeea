import type { SessionStore } from '../session.js';
import { assertSessionId } from '../session-id.js';
import { SessionBusyError, type SessionLease, SessionLeaseLostError } from '../session-lease.js';
import { sleep } from '../timing/sleep.js';

/** How long a lease lasts without renewal; the holder renews it every third of that. */
export const LEASE_TTL_MS = 30_000;
// How often a waiting invocation asks again: a busy session frees when its holder's run ends.
const POLL_MS = 100;

/** Options of {@link holdSession}. */
export interface HoldOptions {
  /** Who asks, named to whoever finds the session busy. */
  holder: string;
  /** Milliseconds to wait for a busy session; 0 or undefined fails at once. */
  wait?: number;
  signal?: AbortSignal;
  ttlMs?: number;
  /** Called once if the lease is lost while held (it expired and was taken): the invocation must stop. */
  onLost(error: unknown): void;
}

/** A session held for one invocation; `release` stops the renewals and gives the lease up. */
export interface HeldSession {
  readonly lease: SessionLease;
  release(): Promise<void>;
}

/**
 * Takes the session's lease for a whole invocation (checking the id first), waiting up to
 * `wait` ms for a busy one, and renews it while held so a killed holder frees it within its TTL.
 * Throws {@link SessionBusyError} naming the holder when the session stays busy.
 */
export async function holdSession(
  store: SessionStore,
  sessionId: string,
  options: HoldOptions,
): Promise<HeldSession> {
  assertSessionId(sessionId);
  const ttlMs = options.ttlMs ?? LEASE_TTL_MS;
  const started = Date.now();
  let lease: SessionLease;
  for (;;) {
    const attempt = await store.lease(sessionId, { holder: options.holder, ttlMs });
    if ('lease' in attempt) {
      lease = attempt.lease;
      break;
    }
    const waited = Date.now() - started;
    const left = (options.wait ?? 0) - waited;
    if (left <= 0) throw new SessionBusyError(sessionId, attempt.busy, options.wait ? waited : 0);
    await sleep(Math.min(POLL_MS, left), options.signal, 'waiting for the session');
  }
  let released = false;
  let renewing: Promise<unknown> = Promise.resolve();
  const renew = async () => {
    try {
      lease = await store.renewLease(lease, ttlMs);
    } catch (error) {
      // A failed write is retried at the next tick; only a lease past its expiry is given up for lost.
      if (released) return;
      if (!(error instanceof SessionLeaseLostError) && Date.now() < lease.expiresAt) return;
      stopRenewing();
      options.onLost(error);
    }
  };
  // A lease that never expires (a store private to one run) needs no renewal.
  const stopRenewing =
    lease.expiresAt === Number.POSITIVE_INFINITY
      ? () => undefined
      : renewEvery(ttlMs, () => {
          renewing = renewing.then(renew);
        });
  return {
    get lease() {
      return lease;
    },
    async release() {
      if (released) return;
      released = true;
      stopRenewing();
      await renewing;
      // A lease that cannot be released lapses at its expiry (or at once, for a dead local holder).
      await store.releaseLease(lease).catch(() => undefined);
    },
  };
}

// One renewal timer per TTL for all the leases this process holds, not one per invocation: a
// thousand concurrent runs share one timer. Each lease is renewed within a third of its TTL.
const renewals = new Map<number, { timer: ReturnType<typeof setInterval>; ticks: Set<() => void> }>();

function renewEvery(ttlMs: number, tick: () => void): () => void {
  let group = renewals.get(ttlMs);
  if (!group) {
    const ticks = new Set<() => void>();
    const timer = setInterval(() => {
      for (const each of ticks) each();
    }, ttlMs / 3);
    timer.unref();
    group = { timer, ticks };
    renewals.set(ttlMs, group);
  }
  const joined = group;
  joined.ticks.add(tick);
  return () => {
    if (!joined.ticks.delete(tick) || joined.ticks.size > 0) return;
    clearInterval(joined.timer);
    renewals.delete(ttlMs);
  };
}
