import { readFile } from 'node:fs/promises';
import { type Adapter, Low } from 'lowdb';
import { writeFileAtomic } from './atomic-write.js';
import { parseStoredSession, type StoredSession, serialiseStoredSession } from './stored-session.js';

/**
 * A lowdb adapter for one session file: reads validate the layout, writes are atomic (temp file,
 * fsync, rename). The caller holds the session's lock around read-modify-write.
 */
export class SessionFile implements Adapter<StoredSession> {
  /** Absolute path of the file. */
  readonly path: string;
  readonly #durable: boolean;
  /** Size in bytes after the last write, for the index. */
  bytes = 0;

  constructor(path: string, durable: boolean) {
    this.path = path;
    this.#durable = durable;
  }

  async read(): Promise<StoredSession | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    this.bytes = Buffer.byteLength(text);
    return parseStoredSession(text, this.path);
  }

  async write(data: StoredSession): Promise<void> {
    this.bytes = await writeFileAtomic(this.path, serialiseStoredSession(data), this.#durable);
  }
}

/** Opens a session file as a lowdb database whose data is null until read finds the file. */
export function openSessionDb(file: SessionFile): Low<StoredSession | null> {
  return new Low<StoredSession | null>(file as Adapter<StoredSession | null>, null);
}
