import type { Message, Session } from '@agentctl/core';
import { CorruptSessionError } from './errors.js';

/** The layout version this package reads and writes. */
export const FORMAT_VERSION = 1;

/** A stored session (a log's snapshot line, or a one-file session): the core session plus the saved conversation. */
export interface StoredSession extends Session {
  /** The conversation saved through the `MemoryProvider` interface, when any. */
  messages?: Message[];
}

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

/** What is wrong with a parsed value as a session, or undefined when nothing is. */
export function checkShape(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const session = value as Record<string, unknown>;
  if (session.version !== FORMAT_VERSION) {
    return `unsupported version ${JSON.stringify(session.version)} (this agentctl reads version ${FORMAT_VERSION})`;
  }
  if (typeof session.id !== 'string') return '"id" is missing or not a string';
  if (!Array.isArray(session.events)) return '"events" is missing or not a list';
  if (typeof session.state !== 'object' || session.state === null || Array.isArray(session.state)) {
    return '"state" is missing or not an object';
  }
  if (typeof session.createdAt !== 'number' || typeof session.updatedAt !== 'number') {
    return '"createdAt"/"updatedAt" are missing or not numbers';
  }
  if (session.messages !== undefined && !Array.isArray(session.messages)) return '"messages" is not a list';
  return undefined;
}

/** A session as one line of JSON: a log's snapshot line (compact, and a newline ends it). */
export function serialiseStoredSession(session: StoredSession): string {
  return `${JSON.stringify(session)}\n`;
}
