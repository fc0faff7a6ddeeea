import { open, readFile, stat } from 'node:fs/promises';
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

/** One line of `index.jsonl`. */
type JournalLine = { generation: number } | { put: IndexEntry } | { del: string };

// The journal is folded into the snapshot once it outgrows it, so compaction's O(sessions) cost is
// spread over at least as many appends: an append stays O(1) in the number of sessions.
const MIN_COMPACT_BYTES = 256 * 1024;

interface Cache {
  snapshotKey: string;
  journalKey: string;
  journalOffset: number;
  entries: Map<string, IndexEntry>;
}

/**
 * The summaries `list` reads, so listing never opens session files: a snapshot (`index.json`) plus
 * an append-only journal (`index.jsonl`) of changes since, both guarded by `index.lock`. The index
 * is derived data: when it is missing or unreadable it is rebuilt from the session files.
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

  /** Every session's summary, by id. */
  async read(): Promise<Map<string, IndexEntry>> {
    for (let attempt = 0; ; attempt++) {
      const result = await this.#tryRead(false);
      if (result) return result;
      // A compaction finished between reading the snapshot and the journal; read again.
      if (attempt >= 5) return this.#underLock(async () => (await this.#tryRead(true)) ?? new Map());
    }
  }

  /** Rewrites the index from the session files themselves. */
  rebuild(): Promise<Map<string, IndexEntry>> {
    return this.#underLock(() => this.#rebuildLocked());
  }

  async #rebuildLocked(): Promise<Map<string, IndexEntry>> {
    const entries = new Map((await scanSessions(this.#dir)).map((e) => [e.id, e]));
    await this.#writeSnapshot(entries, await this.#currentGeneration());
    return entries;
  }

  async #append(line: JournalLine): Promise<void> {
    await this.#underLock(async () => {
      const handle = await open(this.#journalPath, 'a');
      let journalBytes: number;
      try {
        // The leading newline ends any line a killed writer left half-written.
        await handle.write(`\n${JSON.stringify(line)}\n`);
        journalBytes = (await handle.stat()).size;
      } finally {
        await handle.close();
      }
      if (journalBytes <= MIN_COMPACT_BYTES) return;
      const snapshotBytes = (await stat(this.#snapshotPath).catch(() => undefined))?.size ?? 0;
      if (journalBytes > snapshotBytes) await this.#compact();
    });
  }

  async #compact(): Promise<void> {
    const entries = await this.#tryRead(true);
    if (entries) await this.#writeSnapshot(entries, await this.#currentGeneration());
  }

  async #currentGeneration(): Promise<number> {
    const snapshot = await this.#readSnapshot().catch(() => undefined);
    return snapshot?.generation ?? 0;
  }

  /** Writes the snapshot first, then a fresh journal: a crash in between leaves an older journal, ignored. */
  async #writeSnapshot(entries: Map<string, IndexEntry>, previousGeneration: number): Promise<void> {
    const generation = previousGeneration + 1;
    const snapshot: Snapshot = { version: FORMAT_VERSION, generation, sessions: [...entries.values()] };
    await writeFileAtomic(this.#snapshotPath, `${JSON.stringify(snapshot)}\n`, this.#durable);
    await writeFileAtomic(this.#journalPath, `${JSON.stringify({ generation })}\n`, this.#durable);
    this.#cache = undefined;
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
  async #tryRead(locked: boolean): Promise<Map<string, IndexEntry> | undefined> {
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
        cache.journalOffset,
        undefined,
        journalInfo?.ino,
      );
      if (offset >= 0) {
        cache.journalOffset = offset;
        return new Map(cache.entries);
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
    const offset = await this.#replayJournal(entries, 0, generation);
    if (offset < 0) return undefined;
    this.#cache = { snapshotKey, journalKey, journalOffset: offset, entries: new Map(entries) };
    return entries;
  }

  /**
   * Applies journal lines from byte `from` to `entries`; returns the offset after the last complete
   * line, or -1 when the journal belongs to a newer snapshot than the one read (or is not the
   * file `expectedIno` names): a compaction raced the read.
   */
  async #replayJournal(
    entries: Map<string, IndexEntry>,
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
      if (text === '') continue;
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        continue; // half a line from a killed writer
      }
      if ('generation' in line) {
        if (generation === undefined) continue;
        if (line.generation > generation) return -1;
        // A journal older than the snapshot is already folded into it (a compaction died midway).
        applying = line.generation === generation;
      } else if (applying && 'put' in line) entries.set(line.put.id, line.put);
      else if (applying && 'del' in line) entries.delete(line.del);
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
