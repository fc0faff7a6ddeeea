import type { SessionSummary } from '@agentctl/core';
import type { StoredSession } from './stored-session.js';

/** What the index keeps about one session: its summary, the file size it last wrote, and corruption found. */
export interface IndexEntry extends SessionSummary {
  /** Size of the session's log after the store's last write; another size means someone else changed it. */
  bytes: number;
  /** Why the file could not be read, when a check found it corrupt. */
  corrupt?: string;
}

/** The index entry of a stored session written as `bytes` bytes. */
export function indexEntryOf(session: StoredSession, bytes: number): IndexEntry {
  const entry: IndexEntry = {
    id: session.id,
    eventCount: session.events.length,
    paused: session.checkpoint !== undefined,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    bytes,
  };
  if (session.agent !== undefined) entry.agent = session.agent;
  if (session.parentId !== undefined) entry.parentId = session.parentId;
  if (session.parentCallId !== undefined) entry.parentCallId = session.parentCallId;
  return entry;
}
