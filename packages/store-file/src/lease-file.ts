import { readFile, unlink } from 'node:fs/promises';
import {
  holderOf,
  type LeaseAttempt,
  type LeaseRequest,
  leaseLapsed,
  newLease,
  type SessionLease,
  SessionLeaseLostError,
  type StoredLease,
} from '@agentctl/core';
import { writeFileAtomic } from './atomic-write.js';
import { HOST, processGone } from './file-lock.js';

/** `<id>.lease`: the holder of a session's lease, with the process that holds it. */
interface LeaseRecord extends StoredLease {
  pid: number;
  host: string;
}

/**
 * A session's lease as a file, read and written under the session's lock by the caller. A lease
 * lapses at its expiry, or at once when its holder is a process of this host that has exited.
 */
export class LeaseFile {
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  /** Takes the lease unless a live holder has it. */
  async acquire(sessionId: string, request: LeaseRequest): Promise<LeaseAttempt> {
    const now = Date.now();
    const current = await this.#read();
    if (current && !lapsed(current, now)) return { busy: holderOf(current) };
    const lease = newLease(sessionId, request, now);
    await this.#write(lease);
    return { lease };
  }

  /** Extends the lease if `lease.token` still holds it. */
  async renew(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    const current = await this.#read();
    if (current?.token !== lease.token) {
      throw new SessionLeaseLostError(lease.sessionId, current && holderOf(current));
    }
    const renewed = { ...lease, expiresAt: Date.now() + ttlMs };
    await this.#write(renewed);
    return renewed;
  }

  /** Throws `SessionLeaseLostError` unless `lease.token` holds the session (a fenced write's check). */
  async check(sessionId: string, lease: SessionLease): Promise<void> {
    const current = await this.#read();
    if (current?.token !== lease.token)
      throw new SessionLeaseLostError(sessionId, current && holderOf(current));
  }

  /** Removes the file if `lease.token` still holds it. */
  async release(lease: SessionLease): Promise<void> {
    if ((await this.#read())?.token !== lease.token) return;
    await unlink(this.#path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  async #read(): Promise<LeaseRecord | undefined> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const value = JSON.parse(text) as LeaseRecord;
      return typeof value.token === 'string' && typeof value.expiresAt === 'number' ? value : undefined;
    } catch {
      return undefined; // written atomically, so unreadable means a hand edit: it holds nothing
    }
  }

  // A lease is not worth an fsync: lost in a machine crash, it frees the session, which is right.
  async #write(lease: SessionLease): Promise<void> {
    const record: LeaseRecord = {
      token: lease.token,
      holder: lease.holder,
      since: lease.since,
      expiresAt: lease.expiresAt,
      where: `pid ${process.pid} on ${HOST}`,
      pid: process.pid,
      host: HOST,
    };
    await writeFileAtomic(this.#path, JSON.stringify(record), false);
  }
}

function lapsed(record: LeaseRecord, now: number): boolean {
  return leaseLapsed(record, now) || processGone(record.pid, record.host);
}
