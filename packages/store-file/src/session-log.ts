import { type AgentEvent, applyStateDelta, eventShapeProblem } from '@agentctl/core';
import { CorruptSessionError } from './errors.js';
import { type IndexEntry, indexEntryOf } from './index-entry.js';
import { checkShape, type StoredSession } from './stored-session.js';

/**
 * One line after the snapshot of a session log (`<id>.jsonl`): events appended, or the checkpoint
 * or saved conversation replaced (`clear` removes one). `t` is when it was written.
 */
export type LogRecord =
  | { t: number; events: AgentEvent[] }
  | { t: number; checkpoint: unknown }
  | { t: number; messages: unknown[] }
  | { t: number; clear: 'checkpoint' | 'messages' };

/** What a writer needs to know about a log without reading it again: its summary and its waste. */
export interface LogTail {
  /** Byte offset after the last complete line: where the next record goes. */
  size: number;
  /** How many complete lines end before {@link LogTail.size} (the snapshot is line 1). */
  lines: number;
  /** The session's summary as of that offset (its `bytes` is `size`). */
  entry: IndexEntry;
  /** Bytes of records superseded by later ones (old checkpoints, old conversations). */
  deadBytes: number;
  /** Bytes of the record holding the current checkpoint / conversation (0 when in the snapshot or none). */
  checkpointBytes: number;
  messagesBytes: number;
}

const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;

// A record named by line, as an editor shows it, and by byte, for a file too large to open in one.
function whereIn(tail: LogTail, offset: number): string {
  return `line ${tail.lines + 1} (byte ${offset})`;
}

/** The text of one record line. */
export function encodeRecord(record: LogRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
}

/**
 * Reads a whole log: line 1 is the snapshot (a session as of the last compaction), each further
 * complete line a record. A last line without its newline is a write a crash cut short: it is left
 * out (and {@link LogTail.size} stops before it). Anything else unreadable is corruption.
 */
export function parseLog(data: Buffer, path: string): { session: StoredSession; tail: LogTail } {
  const first = data.indexOf(NEWLINE);
  if (first < 0) {
    const reason = data.length === 0 ? 'the file is empty' : 'the snapshot line is cut short';
    throw new CorruptSessionError(path, reason);
  }
  let session: StoredSession;
  try {
    session = JSON.parse(data.toString('utf8', 0, first)) as StoredSession;
  } catch (error) {
    throw new CorruptSessionError(path, `line 1: invalid JSON (${(error as Error).message})`, {
      cause: error,
      line: 1,
    });
  }
  const problem = checkShape(session);
  if (problem) throw new CorruptSessionError(path, `line 1: ${problem}`, { line: 1 });
  const tail: LogTail = {
    size: first + 1,
    lines: 1,
    entry: indexEntryOf(session, first + 1),
    deadBytes: 0,
    checkpointBytes: 0,
    messagesBytes: 0,
  };
  foldRecords(data, first + 1, tail, path, session);
  return { session, tail };
}

/**
 * Applies the complete record lines of `data` from byte `from` to `tail` (and to `session` when
 * given). Offsets in `tail` count from the start of the file, so `data` may be the file from any
 * line boundary on (`base` is the file offset of `data[0]`).
 */
export function foldRecords(
  data: Buffer,
  from: number,
  tail: LogTail,
  path: string,
  session?: StoredSession,
  base = 0,
): void {
  let start = from;
  for (;;) {
    const end = data.indexOf(NEWLINE, start);
    if (end < 0) break;
    const bytes = end + 1 - start;
    // A record starts with `{`; a line of blanks is one a hand edit left (a record's text deleted).
    if (data[start] !== OPEN_BRACE && data.toString('utf8', start, end).trim() === '') {
      start = end + 1;
      tail.lines++;
      tail.size = base + start;
      tail.entry.bytes = tail.size;
      continue;
    }
    let record: LogRecord;
    try {
      record = JSON.parse(data.toString('utf8', start, end)) as LogRecord;
    } catch (error) {
      const where = whereIn(tail, base + start);
      throw new CorruptSessionError(path, `${where}: invalid JSON (${(error as Error).message})`, {
        cause: error,
        line: tail.lines + 1,
      });
    }
    applyRecord(record, bytes, tail, session, path, base + start);
    start = end + 1;
    tail.lines++;
    tail.size = base + start;
    tail.entry.bytes = tail.size;
  }
}

function applyRecord(
  record: LogRecord,
  bytes: number,
  tail: LogTail,
  session: StoredSession | undefined,
  path: string,
  offset: number,
): void {
  const line = tail.lines + 1;
  if (typeof record !== 'object' || record === null || typeof record.t !== 'number') {
    throw new CorruptSessionError(
      path,
      `${whereIn(tail, offset)}: not a record (an object with a time "t")`,
      { line },
    );
  }
  const entry = tail.entry;
  entry.updatedAt = Math.max(entry.updatedAt, record.t);
  if (session) session.updatedAt = entry.updatedAt;
  if ('events' in record) {
    if (!Array.isArray(record.events))
      throw new CorruptSessionError(path, `${whereIn(tail, offset)}: "events" is not a list`, { line });
    entry.eventCount += record.events.length;
    if (session) {
      // Checked as the session is read for use, not as a writer folds its own line after writing.
      for (const event of record.events) {
        const problem = eventShapeProblem(event);
        if (problem) throw new CorruptSessionError(path, `${whereIn(tail, offset)}: ${problem}`, { line });
      }
      for (const event of record.events) session.events.push(event);
      applyStateDelta(session.state, record.events);
    }
  } else if ('checkpoint' in record || ('clear' in record && record.clear === 'checkpoint')) {
    tail.deadBytes += tail.checkpointBytes;
    const set = 'checkpoint' in record;
    tail.checkpointBytes = bytes;
    entry.paused = set;
    if (session) {
      if (set) session.checkpoint = record.checkpoint;
      else delete session.checkpoint;
    }
  } else if ('messages' in record || ('clear' in record && record.clear === 'messages')) {
    tail.deadBytes += tail.messagesBytes;
    tail.messagesBytes = bytes;
    if (session) {
      if ('messages' in record) session.messages = record.messages as StoredSession['messages'];
      else delete session.messages;
    }
  } else {
    throw new CorruptSessionError(
      path,
      `${whereIn(tail, offset)}: unknown record ${JSON.stringify(Object.keys(record))}`,
      {
        line,
      },
    );
  }
}
