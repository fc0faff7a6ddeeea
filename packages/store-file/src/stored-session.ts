import { SESSION_FORMAT_VERSION, type StoredSession, sessionShapeProblem } from '@agentctl/core';
import { CorruptSessionError } from './errors.js';

/** The layout version this package reads and writes. */
export const FORMAT_VERSION = SESSION_FORMAT_VERSION;

export type { StoredSession };

/** Parses the text of a session file, throwing {@link CorruptSessionError} (naming `path`) when it is not one. */
export function parseStoredSession(text: string, path: string): StoredSession {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = text.trim() === '' ? 'the file is empty' : `invalid JSON (${(error as Error).message})`;
    throw new CorruptSessionError(path, reason, { cause: error });
  }
  const problem = checkShape(value);
  if (problem) throw new CorruptSessionError(path, problem);
  return value as StoredSession;
}

/** What is wrong with a parsed value as a session, or undefined when nothing is (core's one check). */
export const checkShape = sessionShapeProblem;

/** A session as one line of JSON: a log's snapshot line (compact, and a newline ends it). */
export function serialiseStoredSession(session: StoredSession): string {
  return `${JSON.stringify(session)}\n`;
}

/**
 * A session as the lines of a new log, for one too long to be one string (over 512 MB of JSON,
 * an imported export): the snapshot line without its events, then its events in records of about
 * `lineChars` characters each, as appends would have written them. Reading the log gives the
 * session back: each record's state changes are applied again, which leaves the state as it was
 * (the last change of each key wins either way).
 */
export function* storedSessionLines(session: StoredSession, lineChars = 64 * 1024 * 1024): Generator<string> {
  yield serialiseStoredSession({ ...session, events: [] });
  const opening = `{"t":${JSON.stringify(session.updatedAt)},"events":[`;
  let line = '';
  for (const event of session.events) {
    const text = JSON.stringify(event);
    if (line !== '' && line.length + text.length > lineChars) {
      yield `${opening}${line}]}\n`;
      line = '';
    }
    line += line === '' ? text : `,${text}`;
  }
  if (line !== '') yield `${opening}${line}]}\n`;
}
