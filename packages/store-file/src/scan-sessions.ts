import { readdir } from 'node:fs/promises';
import { sweepDeadTemps } from './dead-temps.js';
import { CorruptSessionError } from './errors.js';
import type { IndexEntry } from './index-entry.js';
import { SessionLogs } from './session-logs.js';

/**
 * The ids of every session in `dir`: logs (`<id>.jsonl`) and one-file sessions of the old layout
 * (`<id>.json`). Temp files left by creates killed midway are swept on the way (see `sweepDeadTemps`).
 */
export async function sessionFileIds(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // The folder is read here anyway: what killed creators left in it goes at no extra cost.
  await sweepDeadTemps(dir, names);
  const ids = new Set<string>();
  for (const name of names) {
    if (name.endsWith('.jsonl') && name !== 'index.jsonl') ids.add(name.slice(0, -6));
    else if (name.endsWith('.json') && name !== 'index.json') ids.add(name.slice(0, -5));
  }
  return [...ids];
}

/** Reads one session into an index entry; a corrupt file becomes an entry marked corrupt. */
export async function entryFromFile(dir: string, id: string): Promise<IndexEntry | undefined> {
  const logs = new SessionLogs(dir, false);
  try {
    return await logs.entry(id);
  } catch (error) {
    if (!(error instanceof CorruptSessionError)) throw error;
    return {
      id,
      eventCount: 0,
      paused: false,
      createdAt: 0,
      updatedAt: 0,
      bytes: -1,
      corrupt: error.message,
    };
  }
}

/** Index entries for every session in `dir`, read one by one (used only to rebuild a lost index). */
export async function scanSessions(dir: string): Promise<IndexEntry[]> {
  const entries: IndexEntry[] = [];
  for (const id of await sessionFileIds(dir)) {
    const entry = await entryFromFile(dir, id);
    if (entry) entries.push(entry);
  }
  return entries;
}
