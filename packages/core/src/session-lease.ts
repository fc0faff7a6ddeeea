import { newId } from './new-id.js';

/**
 * An exclusive, expiring hold on one session for one invocation. A database can store it as a row
 * (`session_id` key, `token`, `holder`, `since`, `expires_at`): taking it is an insert, or an
 * update of a row whose expiry has passed; renewing and releasing match on the token.
 */
export interface SessionLease {
  sessionId: string;
  /** Secret to the holder: renew and release must present it. */
  token: string;
  /** Who holds it, for messages (the invocation). */
  holder: string;
  /** When it was taken, epoch ms. */
  since: number;
  /** When it lapses unless renewed, epoch ms. */
  expiresAt: number;
}

/** What a store tells about the current holder of a busy session. */
export interface LeaseHolder {
  holder: string;
  since: number;
  expiresAt: number;
  /** Where the holder runs, when the store knows (e.g. `pid 42 on host-a`). */
  where?: string;
}

/** What {@link SessionStore.lease} is asked for. */
export interface LeaseRequest {
  /** Who asks, for the message another asker gets (e.g. `invocation 3f2a…`). */
  holder: string;
  /** How long the lease lasts without a renewal. */
  ttlMs: number;
}

/** The answer of {@link SessionStore.lease}: the lease, or who holds the session. */
export type LeaseAttempt = { lease: SessionLease } | { busy: LeaseHolder };

/** A session held by another invocation (after waiting as long as allowed, if at all). */
export class SessionBusyError extends Error {
  /** The busy session. */
  readonly sessionId: string;
  /** Who holds it. */
  readonly holder: LeaseHolder;

  constructor(sessionId: string, holder: LeaseHolder, waitedMs: number) {
    const where = holder.where ? `, ${holder.where}` : '';
    const since = new Date(holder.since).toISOString();
    const waited = waitedMs > 0 ? ` after waiting ${Math.round(waitedMs)} ms` : '';
    super(
      `session ${sessionId} is busy${waited}: ${holder.holder} holds it (since ${since}${where}); ` +
        'one invocation at a time runs on a session',
    );
    this.name = new.target.name;
    this.sessionId = sessionId;
    this.holder = holder;
  }
}

/** A lease that expired and was taken by another holder (or released) before its renewal. */
export class SessionLeaseLostError extends Error {
  /** The session whose lease was lost. */
  readonly sessionId: string;

  constructor(sessionId: string, now?: LeaseHolder) {
    super(
      `lost the lease on session ${sessionId}` +
        (now ? `: ${now.holder} took it after it expired` : ': it expired and was released'),
    );
    this.name = new.target.name;
    this.sessionId = sessionId;
  }
}

/** A lease record as a store keeps it. */
export type StoredLease = Omit<SessionLease, 'sessionId'> & { where?: string };

/** True when `record` no longer holds its session at `now`. */
export function leaseLapsed(record: StoredLease | undefined, now: number): boolean {
  return record === undefined || record.expiresAt <= now;
}

/** A new lease record for `request`, taken at `now`. */
export function newLease(sessionId: string, request: LeaseRequest, now: number): SessionLease {
  return {
    sessionId,
    token: newId(),
    holder: request.holder,
    since: now,
    expiresAt: now + request.ttlMs,
  };
}

/** What a busy answer says about a stored lease. */
export function holderOf(record: StoredLease): LeaseHolder {
  const holder: LeaseHolder = { holder: record.holder, since: record.since, expiresAt: record.expiresAt };
  if (record.where !== undefined) holder.where = record.where;
  return holder;
}

/** The leases of an in-process store: a map from session id to its record. */
export class LeaseTable {
  readonly #leases = new Map<string, StoredLease>();

  /** Takes the lease of `sessionId` unless another live lease holds it. */
  acquire(sessionId: string, request: LeaseRequest): LeaseAttempt {
    const now = Date.now();
    const current = this.#leases.get(sessionId);
    if (current && !leaseLapsed(current, now)) return { busy: holderOf(current) };
    const lease = newLease(sessionId, request, now);
    this.#leases.set(sessionId, {
      token: lease.token,
      holder: lease.holder,
      since: now,
      expiresAt: lease.expiresAt,
    });
    return { lease };
  }

  /** Extends a lease still held by its token; throws {@link SessionLeaseLostError} otherwise. */
  renew(lease: SessionLease, ttlMs: number): SessionLease {
    const current = this.#leases.get(lease.sessionId);
    // An expired lease nobody took yet is still ours to renew: nobody else has written since.
    if (current?.token !== lease.token) {
      throw new SessionLeaseLostError(lease.sessionId, current && holderOf(current));
    }
    current.expiresAt = Date.now() + ttlMs;
    return { ...lease, expiresAt: current.expiresAt };
  }

  /** Throws {@link SessionLeaseLostError} unless `lease.token` holds `sessionId` (a fenced write's check). */
  check(sessionId: string, lease: SessionLease): void {
    const current = this.#leases.get(sessionId);
    if (current?.token !== lease.token) {
      throw new SessionLeaseLostError(sessionId, current && holderOf(current));
    }
  }

  /** Gives a lease up; nothing happens when the token no longer holds it. */
  release(lease: SessionLease): void {
    if (this.#leases.get(lease.sessionId)?.token === lease.token) this.#leases.delete(lease.sessionId);
  }
}
