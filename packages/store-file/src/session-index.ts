import { closeSync, fstatSync, openSync, type Stats, writeSync } from 'node:fs';
import { appendFile, type FileHandle, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { acquireLock, type LockOptions } from './file-lock.js';
import type { IndexEntry } from './index-entry.js';
import { KeyedQueue } from './keyed-queue.js';
import { scanSessions, sessionFileIds } from './scan-sessions.js';
import { FORMAT_VERSION } from './stored-session.js';

/** `index.json`: every session's summary as of the last compaction. */
interface Snapshot {
  version: typeof FORMAT_VERSION;
  generation: number;
  sessions: IndexEntry[];
}

/**
 * One line of `index.jsonl`. `copied` marks a line a compaction carried over from the journal it
 * replaced: it is older than any line of the new journal for the same session, so it never
 * overrides one.
 */
type JournalLine =
  | { generation: number }
  | { put: IndexEntry; copied?: true }
  | { del: string; copied?: true };

// The journal is folded into the snapshot once it outgrows it, so compaction's O(sessions) cost is
// spread over at least as many appends: an append stays O(1) in the number of sessions.
const MIN_COMPACT_BYTES = 256 * 1024;

interface Cache {
  snapshotKey: string;
  journalKey: string;
  journalOffset: number;
  entries: Map<string, IndexEntry>;
  /** Sessions set by a line of this journal written by its writer (not copied). */
  written: Set<string>;
}

/**
 * The summaries `list` reads, so listing never opens session files: a snapshot (`index.json`) plus
 * an append-only journal (`index.jsonl`) of changes since. A change is one `O_APPEND` write of one
 * line, with no lock: the kernel keeps concurrent appends whole and in order, and the writes of one
 * session are already ordered by that session's lock. Only folding the journal into the snapshot
 * (rare: the journal must outgrow 256 KiB and the snapshot) takes `index.lock`; a writer whose line
 * went to a journal the fold replaced writes it again, and the fold carries over the lines written
 * while it ran (see {@link JournalLine}). The index is derived data: when it is missing or
 * unreadable it is rebuilt from the session files.
 */
export class SessionIndex {
  readonly #dir: string;
  readonly #durable: boolean;
  readonly #lock: LockOptions;
  #cache: Cache | undefined;
  readonly #queue = new KeyedQueue();

  constructor(dir: string, durable: boolean, lock: LockOptions) {
    this.#dir = dir;
    this.#durable = durable;
    this.#lock = lock;
  }

  get #snapshotPath(): string {
    return join(this.#dir, 'index.json');
  }

  get #journalPath(): string {
    return join(this.#dir, 'index.jsonl');
  }

  /** Records the current summary of a session. */
  put(entry: IndexEntry): Promise<void> {
    return this.#append({ put: entry });
  }

  /** Records that a session is gone. */
  remove(id: string): Promise<void> {
    return this.#append({ del: id });
  }

  /** Every session's summary, by id: a copy the caller may change. */
  read(): Promise<Map<string, IndexEntry>> {
    return this.#read(true);
  }

  /**
   * Every session's summary, by id, as this index holds it: no copy (a listing of 100,000 sessions
   * makes none), to be read at once and never changed.
   */
  view(): Promise<ReadonlyMap<string, IndexEntry>> {
    return this.#read(false);
  }

  async #read(copy: boolean): Promise<Map<string, IndexEntry>> {
    for (let attempt = 0; ; attempt++) {
      const result = await this.#tryRead(false, copy);
      if (result) return result;
      // A compaction finished between reading the snapshot and the journal; read again.
      if (attempt >= 5) return this.#underLock(async () => (await this.#tryRead(true, copy)) ?? new Map());
    }
  }

  /** Rewrites the index from the session files themselves. */
  rebuild(): Promise<Map<string, IndexEntry>> {
    return this.#underLock(() => this.#rebuildLocked());
  }

  async #rebuildLocked(): Promise<Map<string, IndexEntry>> {
    // Lines written from here on may describe writes the scan below misses: they are carried over.
    const old = await openIfExists(this.#journalPath);
    try {
      const from = old ? (await old.stat()).size : 0;
      const entries = new Map((await scanSessions(this.#dir)).map((e) => [e.id, e]));
      await this.#writeSnapshot(entries, await this.#currentGeneration(), old, from);
      return entries;
    } finally {
      await old?.close();
    }
  }

  async #append(line: JournalLine): Promise<void> {
    const text = `\n${JSON.stringify(line)}\n`;
    let info: Stats;
    for (;;) {
      // One small write to the page cache, made synchronously (microseconds, less than a round trip
      // to the thread pool); the leading newline ends any line a killed writer left half-written.
      const fd = openSync(this.#journalPath, 'a');
      try {
        writeSync(fd, text);
        info = fstatSync(fd);
      } finally {
        closeSync(fd);
      }
      // A fold renamed a new journal over this one before the line landed: write it again there.
      if (info.nlink > 0) break;
    }
    if (info.size <= MIN_COMPACT_BYTES) return;
    const snapshotBytes = (await stat(this.#snapshotPath).catch(() => undefined))?.size ?? 0;
    if (info.size > snapshotBytes) await this.#underLock(() => this.#compact());
  }

  async #compact(): Promise<void> {
    // Another process may have folded the journal while this one waited for the lock.
    const size = (await stat(this.#journalPath).catch(() => undefined))?.size ?? 0;
    if (size <= MIN_COMPACT_BYTES) return;
    const old = await openIfExists(this.#journalPath);
    try {
      const ino = old ? (await old.stat()).ino : undefined;
      const entries = await this.#tryRead(true);
      const cache = this.#cache;
      if (!entries || !cache || cache.journalKey !== `${ino}`) return;
      await this.#writeSnapshot(entries, await this.#currentGeneration(), old, cache.journalOffset);
    } finally {
      await old?.close();
    }
  }

  async #currentGeneration(): Promise<number> {
    const snapshot = await this.#readSnapshot().catch(() => undefined);
    return snapshot?.generation ?? 0;
  }

  /**
   * Writes the snapshot first, then a fresh journal: a crash in between leaves an older journal,
   * ignored. Then the lines written to the old journal (`old`) after byte `from`, which the snapshot
   * may lack, are copied into the new one (writers that see their journal replaced write again).
   */
  async #writeSnapshot(
    entries: Map<string, IndexEntry>,
    previousGeneration: number,
    old?: FileHandle,
    from = 0,
  ): Promise<void> {
    const generation = previousGeneration + 1;
    const snapshot: Snapshot = { version: FORMAT_VERSION, generation, sessions: [...entries.values()] };
    await writeFileAtomic(this.#snapshotPath, `${JSON.stringify(snapshot)}\n`, this.#durable);
    await writeFileAtomic(this.#journalPath, `${JSON.stringify({ generation })}\n`, this.#durable);
    this.#cache = undefined;
    if (!old) return;
    const size = (await old.stat()).size;
    if (size <= from) return;
    const late = Buffer.alloc(size - from);
    await old.read(late, 0, late.length, from);
    const copies: string[] = [];
    for (const text of late.toString('utf8').split('\n')) {
      const line = parseLine(text);
      if (line && !('generation' in line)) copies.push(JSON.stringify({ ...line, copied: true }));
    }
    if (copies.length > 0) await appendFile(this.#journalPath, `\n${copies.join('\n')}\n`);
  }

  async #readSnapshot(): Promise<Snapshot | undefined> {
    let text: string;
    try {
      text = await readFile(this.#snapshotPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const value = JSON.parse(text) as Snapshot;
    if (value.version !== FORMAT_VERSION || !Array.isArray(value.sessions)) {
      throw new Error(`unsupported index layout in ${this.#snapshotPath}`);
    }
    return value;
  }

  /** Snapshot plus journal, or undefined when a compaction raced the read. */
  async #tryRead(locked: boolean, copy = true): Promise<Map<string, IndexEntry> | undefined> {
    const [snapshotInfo, journalInfo] = await Promise.all([
      stat(this.#snapshotPath).catch(() => undefined),
      stat(this.#journalPath).catch(() => undefined),
    ]);
    if (!snapshotInfo && !journalInfo) {
      // No index at all: a new folder, or session files copied in by hand.
      if ((await sessionFileIds(this.#dir)).length === 0) return new Map();
      return locked ? this.#rebuildLocked() : this.rebuild();
    }
    const snapshotKey = snapshotInfo
      ? `${snapshotInfo.ino}:${snapshotInfo.mtimeMs}:${snapshotInfo.size}`
      : '-';
    const journalKey = journalInfo ? `${journalInfo.ino}` : '-';
    const cache = this.#cache;
    if (
      cache &&
      cache.snapshotKey === snapshotKey &&
      cache.journalKey === journalKey &&
      (journalInfo?.size ?? 0) >= cache.journalOffset
    ) {
      const offset = await this.#replayJournal(
        cache.entries,
        cache.written,
        cache.journalOffset,
        undefined,
        journalInfo?.ino,
      );
      if (offset >= 0) {
        cache.journalOffset = offset;
        return copy ? new Map(cache.entries) : cache.entries;
      }
      this.#cache = undefined; // the journal was replaced since the stat: read everything again
    }
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await this.#readSnapshot();
    } catch {
      return locked ? this.#rebuildLocked() : this.rebuild();
    }
    const entries = new Map((snapshot?.sessions ?? []).map((e) => [e.id, e]));
    const generation = snapshot?.generation ?? 0;
    const written = new Set<string>();
    const offset = await this.#replayJournal(entries, written, 0, generation);
    if (offset < 0) return undefined;
    this.#cache = { snapshotKey, journalKey, journalOffset: offset, entries: new Map(entries), written };
    return entries;
  }

  /**
   * Applies journal lines from byte `from` to `entries`; returns the offset after the last complete
   * line, or -1 when the journal belongs to a newer snapshot than the one read (or is not the
   * file `expectedIno` names): a compaction raced the read.
   */
  async #replayJournal(
    entries: Map<string, IndexEntry>,
    written: Set<string>,
    from: number,
    generation?: number,
    expectedIno?: number,
  ): Promise<number> {
    let buffer: Buffer;
    try {
      const handle = await open(this.#journalPath, 'r');
      try {
        const info = await handle.stat();
        if (expectedIno !== undefined && info.ino !== expectedIno) return -1;
        const size = info.size;
        buffer = Buffer.alloc(Math.max(0, size - from));
        if (buffer.length > 0) await handle.read(buffer, 0, buffer.length, from);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return from;
      throw error;
    }
    // Only complete lines count: a writer may be in the middle of one.
    const end = buffer.lastIndexOf(0x0a) + 1;
    const lines = buffer.subarray(0, end).toString('utf8').split('\n');
    let applying = true;
    for (const text of lines) {
      const line = parseLine(text);
      if (!line) continue; // empty, or half a line from a killed writer
      if ('generation' in line) {
        if (generation === undefined) continue;
        if (line.generation > generation) return -1;
        // A journal older than the snapshot is already folded into it (a compaction died midway).
        applying = line.generation === generation;
        continue;
      }
      if (!applying) continue;
      const id = 'put' in line ? line.put.id : line.del;
      if (line.copied) {
        if (written.has(id)) continue;
      } else written.add(id);
      if ('put' in line) entries.set(id, line.put);
      else entries.delete(id);
    }
    return from + end;
  }

  /** Runs `task` holding `index.lock`; callers in this process queue first instead of polling the file. */
  #underLock<T>(task: () => Promise<T>): Promise<T> {
    return this.#queue.run('index', async () => {
      const release = await acquireLock(join(this.#dir, 'index.lock'), this.#lock);
      try {
        return await task();
      } finally {
        await release();
      }
    });
  }
}

function parseLine(text: string): JournalLine | undefined {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as JournalLine;
  } catch {
    return undefined;
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
