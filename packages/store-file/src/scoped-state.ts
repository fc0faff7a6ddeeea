import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applyDelta, makeFolders } from '@agentctl/core';
import { writeFileAtomic } from './atomic-write.js';
import { sweepDeadTemps } from './dead-temps.js';
import { CorruptSessionError, SessionStoreError } from './errors.js';
import { acquireLock, type LockOptions } from './file-lock.js';

/**
 * State shared across sessions (`app`, `user:<id>`), one JSON file per scope under `scopes/`, written
 * under a lock across processes like session files.
 */
export class ScopedStateFiles {
  readonly #dir: string;
  readonly #lock: LockOptions | undefined;
  #swept: Promise<void> | undefined;

  constructor(sessionsDir: string, lock?: LockOptions) {
    this.#dir = join(sessionsDir, 'scopes');
    this.#lock = lock;
  }

  /** The state of a scope; empty when nothing was written to it yet. */
  async get(scope: string): Promise<Record<string, unknown>> {
    const path = this.#file(scope);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    let parsed: { version?: number; scope?: unknown; state?: Record<string, unknown> };
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new CorruptSessionError(path, (error as Error).message);
    }
    // `user:ada` opens `user:Ada`'s file where the disk ignores case: never read, nor written over.
    if (
      typeof parsed.scope === 'string' &&
      parsed.scope !== scope &&
      parsed.scope.toLowerCase() === scope.toLowerCase()
    )
      throw new SessionStoreError(
        `state scope ${scope} names the file of scope ${parsed.scope} (${path}), whose file system ignores case: use user ids that differ by more than case`,
      );
    return parsed.state ?? {};
  }

  /** Applies a delta to a scope, re-reading it under the lock so no other writer's change is lost. */
  update(scope: string, delta: Record<string, unknown>): Promise<void> {
    return this.#change(scope, (state) => applyDelta(state, delta));
  }

  /**
   * Replaces one key by what `update` makes of its latest value, read under the scope's lock; a
   * `null` or undefined result deletes the key. Answers the new value (undefined when deleted).
   */
  async updateKey(scope: string, key: string, update: (current: unknown) => unknown): Promise<unknown> {
    let value: unknown;
    await this.#change(scope, (state) => {
      value = update(state[key]) ?? null;
      applyDelta(state, { [key]: value });
    });
    return value === null ? undefined : value;
  }

  // Re-reads the scope under its lock, changes it, and writes it back before the lock is let go.
  async #change(scope: string, change: (state: Record<string, unknown>) => void): Promise<void> {
    await makeFolders(this.#dir);
    // Nothing else lists this folder: what killed lock takers left in it goes once per store.
    this.#swept ??= readdir(this.#dir)
      .then((names) => sweepDeadTemps(this.#dir, names))
      .catch(() => undefined);
    await this.#swept;
    const release = await acquireLock(`${this.#file(scope)}.lock`, this.#lock);
    try {
      const state = await this.get(scope);
      change(state);
      await writeFileAtomic(this.#file(scope), JSON.stringify({ version: 1, scope, state }));
    } finally {
      await release();
    }
  }

  #file(scope: string): string {
    return join(this.#dir, `${scopeFileName(scope)}.json`);
  }
}

// Room for the lock and temporary-file suffixes within a file name's 255 bytes.
const MAX_NAME = 160;

/**
 * The scope's file name without `.json`: the scope percent-encoded, so any user id is one safe
 * name. A user id is the caller's text, of any length: an encoded name too long for the file
 * system keeps its start, for people, and ends in the scope's SHA-256, so it stays one name per
 * scope. Shorter names are unchanged, so existing scope files are found as before.
 */
function scopeFileName(scope: string): string {
  const encoded = encodeURIComponent(scope);
  if (encoded.length <= MAX_NAME) return encoded;
  const hash = createHash('sha256').update(scope).digest('hex');
  return `${encoded.slice(0, MAX_NAME - hash.length - 1).replace(/%[0-9A-F]?$/, '')}~${hash}`;
}
