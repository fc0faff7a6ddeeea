import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CorruptSessionError } from './errors.js';
import { type IndexEntry, indexEntryOf } from './index-entry.js';
import { parseStoredSession } from './stored-session.js';

/** The ids of every session file in `dir` (`<id>.json`, not the index and not temp files). */
export async function sessionFileIds(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.endsWith('.json') && name !== 'index.json')
    .map((name) => name.slice(0, -5));
}

/** Reads one session file into an index entry; a corrupt file becomes an entry marked corrupt. */
export async function entryFromFile(dir: string, id: string): Promise<IndexEntry | undefined> {
  const path = join(dir, `${id}.json`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const bytes = Buffer.byteLength(text);
  try {
    return indexEntryOf(parseStoredSession(text, path), bytes);
  } catch (error) {
    if (!(error instanceof CorruptSessionError)) throw error;
    return { id, eventCount: 0, paused: false, createdAt: 0, updatedAt: 0, bytes, corrupt: error.message };
  }
}

/** Index entries for every session file in `dir`, read one by one (used only to rebuild a lost index). */
export async function scanSessions(dir: string): Promise<IndexEntry[]> {
  const entries: IndexEntry[] = [];
  for (const id of await sessionFileIds(dir)) {
    const entry = await entryFromFile(dir, id);
    if (entry) entries.push(entry);
  }
  return entries;
}
