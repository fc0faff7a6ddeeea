import { AgentError } from '../errors.js';
import { keptShapes } from '../loop/kept-shapes.js';
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
  /**
   * Called before each write to the session: undefined while the lease surely holds (renewed on
   * time); otherwise a renewal first, when its renewals fell behind (the process was paused, or its
   * event loop blocked, past part of the TTL), that settles once the lease is confirmed or rejects
   * with the error that lost it. A holder that lapsed meanwhile writes nothing.
   */
  confirm(): Promise<void> | undefined;
  /**
   * Makes one write to the session under the lease: confirmed first (as {@link HeldSession.confirm}),
   * then `write` is given the lease to fence the write with, so the store itself refuses it if another
   * holder took the session meanwhile. A refusal (`SessionLeaseLostError`) loses the lease as a
   * failed renewal would: the invocation stops.
   */
  write(write: (fence: SessionLease) => Promise<void>): Promise<void>;
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
  let asked: number;
  for (;;) {
    asked = performance.now();
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
  const held = new HeldLease(store, lease, ttlMs, options.onLost, asked);
  keptShapes.lease = held;
  // A lease that never expires (a store private to one run) needs no renewal.
  if (lease.expiresAt !== Number.POSITIVE_INFINITY) joinRenewals(held);
  return held;
}

// A class rather than closures over locals: a thousand runs in flight each hold one for their whole life.
class HeldLease implements HeldSession {
  lease: SessionLease;
  readonly ttlMs: number;
  readonly #store: SessionStore;
  readonly #onLost: (error: unknown) => void;
  #released = false;
  #renewing: Promise<void> | undefined;
  #joined = false;
  // When (performance.now(), a clock that no machine's drift or adjustment moves) the last
  // successful renewal, or the taking, was asked for: the lease is surely held until then plus
  // its TTL, since the store counted the TTL from a later moment.
  #confirmedAt: number;
  #lost: { error: unknown } | undefined;

  constructor(
    store: SessionStore,
    lease: SessionLease,
    ttlMs: number,
    onLost: (error: unknown) => void,
    askedAt: number,
  ) {
    this.#store = store;
    this.lease = lease;
    this.ttlMs = ttlMs;
    this.#onLost = onLost;
    this.#confirmedAt = askedAt;
  }

  /** Called by the renewal timer: one renewal at a time, in order. */
  tick(): void {
    this.#joined = true;
    const previous = this.#renewing;
    this.#renewing = previous ? previous.then(() => this.#renew()) : this.#renew();
  }

  async #renew(): Promise<void> {
    if (this.#lost) return;
    const asked = performance.now();
    try {
      this.lease = await this.#store.renewLease(this.lease, this.ttlMs);
      this.#confirmedAt = asked;
    } catch (error) {
      // A failed write is retried at the next tick; only a lease past its expiry is given up for lost.
      if (this.#released) return;
      if (!(error instanceof SessionLeaseLostError) && Date.now() < this.lease.expiresAt) return;
      if (this.#lost) return;
      leaveRenewals(this);
      const lost = error instanceof SessionLeaseLostError ? error : storeFailure(this.lease.sessionId, error);
      this.#lost = { error: lost };
      this.#onLost(lost);
    }
  }

  confirm(): Promise<void> | undefined {
    // Rejected, never thrown: the writer relies on a refused write still taking a turn.
    if (this.#lost) return Promise.reject(this.#lost.error);
    if (this.#released || this.lease.expiresAt === Number.POSITIVE_INFINITY) return undefined;
    // Renewals run every third of the TTL: two thirds without one means they fell behind.
    if (performance.now() - this.#confirmedAt < (this.ttlMs * 2) / 3) return undefined;
    return this.#confirmLate();
  }

  write(write: (fence: SessionLease) => Promise<void>): Promise<void> {
    const confirming = this.confirm();
    // No extra await while the lease surely holds: a write per turn of a thousand runs adds up.
    return confirming ? confirming.then(() => this.#fenced(write)) : this.#fenced(write);
  }

  async #fenced(write: (fence: SessionLease) => Promise<void>): Promise<void> {
    try {
      await write(this.lease);
    } catch (error) {
      if (error instanceof SessionLeaseLostError && !this.#lost && !this.#released) {
        leaveRenewals(this);
        this.#lost = { error };
        this.#onLost(error);
      }
      throw error;
    }
  }

  async #confirmLate(): Promise<void> {
    this.tick();
    await this.#renewing;
    // Read again: the renewal just awaited may have lost it.
    const lost = this.#lost as { error: unknown } | undefined;
    if (lost) throw lost.error;
    if (performance.now() - this.#confirmedAt >= this.ttlMs)
      throw storeFailure(this.lease.sessionId, new Error('its renewal did not succeed within its TTL'));
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    leaveRenewals(this);
    if (this.#joined) await this.#renewing;
    // A lease that cannot be released lapses at its expiry (or at once, for a dead local holder).
    await this.#store.releaseLease(this.lease).catch(() => undefined);
  }
}

// One renewal timer per TTL for all the leases this process holds, not one per invocation: a
// thousand concurrent runs share one timer. Each lease is renewed within a third of its TTL.
const renewals = new Map<number, { timer: ReturnType<typeof setInterval>; held: Set<HeldLease> }>();

function joinRenewals(lease: HeldLease): void {
  let group = renewals.get(lease.ttlMs);
  if (!group) {
    const held = new Set<HeldLease>();
    const timer = setInterval(() => {
      for (const each of held) each.tick();
    }, lease.ttlMs / 3);
    timer.unref();
    group = { timer, held };
    renewals.set(lease.ttlMs, group);
  }
  group.held.add(lease);
}

function leaveRenewals(lease: HeldLease): void {
  const group = renewals.get(lease.ttlMs);
  if (!group?.held.delete(lease) || group.held.size > 0) return;
  clearInterval(group.timer);
  renewals.delete(lease.ttlMs);
}

// A lease lost because the store failed to renew it (a database away past the lease's expiry) ends
// the run as ABORTED, but it is no one's cancel: it is the server's fault, blamed as internal, so a
// server keeps the store's words (its host, its user) from its clients.
function storeFailure(sessionId: string, error: unknown): AgentError {
  const detail = error instanceof Error ? error.message : String(error);
  return new AgentError(
    `lost the lease on session ${sessionId}: the store could not renew it (${detail})`,
    'ABORTED',
    {
      cause: error,
      blame: 'internal',
    },
  );
}
