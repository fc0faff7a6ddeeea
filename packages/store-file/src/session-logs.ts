import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, unlinkSync, writeFileSync } from 'node:fs';
import { type FileHandle, open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory, writeFileAtomic } from './atomic-write.js';
import { SessionExistsError, SessionIdClashError, SessionNotFoundError } from './errors.js';
import { type IndexEntry, indexEntryOf } from './index-entry.js';
import { encodeRecord, foldRecords, type LogRecord, type LogTail, parseLog } from './session-log.js';
import {
  parseStoredSession,
  type StoredSession,
  serialiseStoredSession,
  storedSessionLines,
} from './stored-session.js';

// Superseded records (old checkpoints and conversations) are folded away once they outweigh the
// live bytes: appending events never triggers it, so an append costs the same at any length.
const MIN_COMPACT_BYTES = 64 * 1024;

/**
 * The session logs of one folder: `<id>.jsonl`, a snapshot line then one record per write, so a
 * write appends a line instead of rewriting the session. Writers must hold the session's lock;
 * readers need none (a log only grows by whole lines, and a compaction replaces it by rename).
 * Folders of the one-file layout (`<id>.json`) are read as they are and migrated on first write.
 */
export class SessionLogs {
  readonly #dir: string;
  readonly #durable: boolean;
  /** Where each log ended when this process last read or wrote it, by file identity. */
  readonly #tails = new Map<string, { ino: number; tail: LogTail }>();
  // Set by a create that did not fsync the folder; the next durable append does.
  #unsyncedFolder = false;

  constructor(dir: string, durable: boolean) {
    this.#dir = dir;
    this.#durable = durable;
  }

  /** The log of a session. */
  pathOf(id: string): string {
    return join(this.#dir, `${id}.jsonl`);
  }

  /** The one-file session of the previous layout. */
  legacyPathOf(id: string): string {
    return join(this.#dir, `${id}.json`);
  }

  /** The whole session, or undefined; throws `CorruptSessionError` naming the file. */
  async read(id: string): Promise<StoredSession | undefined> {
    const path = this.pathOf(id);
    const handle = await openIfExists(path, 'r');
    if (!handle) {
      this.#tails.delete(id);
      return this.#readLegacy(id);
    }
    try {
      const { ino } = await handle.stat();
      const { session, tail } = parseLog(await handle.readFile(), path);
      if (caseClash(session.id, id)) throw new SessionIdClashError(id, session.id, this.#dir);
      this.#tails.set(id, { ino, tail });
      return session;
    } finally {
      await handle.close();
    }
  }

  /** The session's summary read from its file (log or legacy); undefined when there is none. */
  async entry(id: string): Promise<IndexEntry | undefined> {
    const session = await this.read(id);
    if (!session) return undefined;
    const cached = this.#tails.get(id);
    return cached
      ? { ...cached.tail.entry }
      : indexEntryOf(session, (await stat(this.legacyPathOf(id))).size);
  }

  /**
   * Writes a new session; its log is linked into place whole, so an existing one is never touched
   * and no reader ever sees half of it. The link is the arbiter between two creators of one id.
   * Nothing is fsynced unless `sync`: a new session holds nothing a user wrote yet, and the first
   * durable append to it fsyncs its file and the folder (see {@link SessionLogs.append}).
   */
  async create(session: StoredSession, sync = false): Promise<IndexEntry> {
    const path = this.pathOf(session.id);
    const text = logText(session);
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      // Inside the try: a write the disk refuses (full) must not leave the temp file behind.
      if ((sync && this.#durable) || typeof text !== 'string')
        await writeSynced(temp, text, sync && this.#durable);
      // Small writes to the page cache, made synchronously: each takes microseconds, less than the
      // round trip to the thread pool an asynchronous call costs. Only fsyncs wait on the disk.
      else writeFileSync(temp, text);
      if (existsSync(this.legacyPathOf(session.id))) throw new SessionExistsError(session.id, this.#dir);
      linkSync(temp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new SessionExistsError(session.id, this.#dir);
      throw error;
    } finally {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
    }
    if (sync && this.#durable) await syncDirectory(this.#dir);
    else this.#unsyncedFolder = true;
    // No tail is cached: the first append reads this one-line file, cheaper than a stat here.
    const bytes =
      typeof text === 'string'
        ? Buffer.byteLength(text)
        : text.reduce((n, line) => n + Buffer.byteLength(line), 0);
    return indexEntryOf(session, bytes);
  }

  /**
   * Appends one record (caller holds the lock). A missing session is made by `create` when given,
   * else refused; a line cut short by a killed writer is cut off first. Returns the new summary.
   */
  async append(id: string, record: LogRecord, create?: () => StoredSession): Promise<IndexEntry> {
    const path = this.pathOf(id);
    let handle = await openIfExists(path, 'r+');
    if (!handle && (await this.#migrate(id))) handle = await openIfExists(path, 'r+');
    if (!handle) {
      if (!create) throw new SessionNotFoundError(id, this.#dir);
      await this.create(create());
      return this.append(id, record);
    }
    let tail: LogTail;
    try {
      const { ino, size } = await handle.stat();
      tail = await this.#tailOf(id, handle, ino, size, path);
      // Never another session's file: `bob` opens Bob's where the disk ignores case.
      if (caseClash(tail.entry.id, id)) throw new SessionIdClashError(id, tail.entry.id, this.#dir);
      if (size > tail.size) await handle.truncate(tail.size);
      const line = encodeRecord(record);
      await handle.write(line, 0, line.length, tail.size);
      if (this.#durable) await handle.datasync();
      // The folder entries of sessions created since the last durable write become durable too.
      if (this.#durable && this.#unsyncedFolder) {
        this.#unsyncedFolder = false;
        await syncDirectory(this.#dir);
      }
      foldRecords(line, 0, tail, path, undefined, tail.size);
      this.#tails.set(id, { ino, tail });
    } catch (error) {
      this.#tails.delete(id);
      throw error;
    } finally {
      await handle.close();
    }
    if (tail.deadBytes > Math.max(MIN_COMPACT_BYTES, tail.size - tail.deadBytes)) return this.#compact(id);
    return { ...tail.entry };
  }

  /** Removes a session's files (caller holds the lock); false when there were none. */
  async remove(id: string): Promise<boolean> {
    this.#tails.delete(id);
    const removed = await Promise.all([this.pathOf(id), this.legacyPathOf(id)].map(unlinkIfExists));
    return removed.some(Boolean);
  }

  /** Rewrites the log as one snapshot line, dropping superseded records (caller holds the lock). */
  async #compact(id: string): Promise<IndexEntry> {
    const session = await this.read(id);
    if (!session) throw new SessionNotFoundError(id, this.#dir);
    const text = serialiseStoredSession(session);
    const path = this.pathOf(id);
    await writeFileAtomic(path, text, this.#durable);
    const size = Buffer.byteLength(text);
    const tail: LogTail = {
      size,
      lines: 1,
      entry: indexEntryOf(session, size),
      deadBytes: 0,
      checkpointBytes: 0,
      messagesBytes: 0,
    };
    this.#tails.set(id, { ino: (await stat(path)).ino, tail });
    return { ...tail.entry };
  }

  /** The tail as this process last left it, brought up to date with lines others added since. */
  async #tailOf(id: string, handle: FileHandle, ino: number, size: number, path: string): Promise<LogTail> {
    const cached = this.#tails.get(id);
    if (cached && cached.ino === ino && size >= cached.tail.size) {
      if (size > cached.tail.size) {
        const added = Buffer.alloc(size - cached.tail.size);
        await handle.read(added, 0, added.length, cached.tail.size);
        foldRecords(added, 0, cached.tail, path, undefined, cached.tail.size);
      }
      return cached.tail;
    }
    const data = Buffer.alloc(size);
    await handle.read(data, 0, size, 0);
    return parseLog(data, path).tail;
  }

  async #readLegacy(id: string): Promise<StoredSession | undefined> {
    const path = this.legacyPathOf(id);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return parseStoredSession(text, path);
  }

  /** Turns a one-file session into a log holding it as its snapshot (caller holds the lock). */
  async #migrate(id: string): Promise<boolean> {
    const session = await this.#readLegacy(id);
    if (!session) return false;
    await writeFileAtomic(this.pathOf(id), serialiseStoredSession(session), this.#durable);
    await unlinkIfExists(this.legacyPathOf(id));
    return true;
  }
}

// A session's log: one snapshot line, or (too long for one string) its lines.
function logText(session: StoredSession): string | string[] {
  try {
    return serialiseStoredSession(session);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [...storedSessionLines(session)];
  }
}

async function writeSynced(path: string, text: string | readonly string[], sync = true): Promise<void> {
  const handle = await open(path, 'w');
  try {
    // Each write goes on where the last one ended.
    for (const part of typeof text === 'string' ? [text] : text) await handle.writeFile(part);
    if (sync) await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function openIfExists(path: string, flags: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function unlinkIfExists(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

// Another session's file reached through a name differing only in case (`bob` opening `Bob.jsonl`
// where the disk ignores case). A file holding an unrelated id (copied in by hand under another
// name) is no clash: it is read as it was before, and one such file must not stop the index.
function caseClash(stored: string, id: string): boolean {
  return stored !== id && stored.toLowerCase() === id.toLowerCase();
}
