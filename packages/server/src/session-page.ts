import type { SessionSummary } from '@agentctl/core';
import { HttpError } from './http-error.js';

/** The most sessions one page of `GET /sessions` holds. */
export const MAX_SESSION_PAGE = 1000;

/** What `GET /sessions` asks for: at most `limit` sessions, after the one `cursor` names. */
export interface SessionPageQuery {
  limit?: string;
  cursor?: string;
}

/** One page of sessions, newest first, and the cursor of the next page when there is one. */
export interface SessionPage {
  sessions: SessionSummary[];
  nextCursor?: string;
}

/**
 * Sorts `all` newest first (ties by id, so the order is total) and cuts the page `query` asks for:
 * every session without `limit`; with it, `limit` of them after the cursor and a `nextCursor` when
 * more follow. The cursor names the last session shown (its time and id), not a position: a session
 * written meanwhile goes to the top, and no session of the later pages is skipped for it.
 */
export function sessionPage(all: Iterable<SessionSummary>, query: SessionPageQuery): SessionPage {
  const limit = query.limit === undefined ? undefined : parseLimit(query.limit);
  const after = query.cursor === undefined ? undefined : parseCursor(query.cursor);
  const sorted = [...all].sort(
    (a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const rest = after
    ? sorted.filter((s) => s.updatedAt < after.time || (s.updatedAt === after.time && s.id > after.id))
    : sorted;
  if (limit === undefined || rest.length <= limit) return { sessions: rest };
  const sessions = rest.slice(0, limit);
  const last = sessions[sessions.length - 1];
  return { sessions, nextCursor: formatCursor(last.updatedAt, last.id) };
}

function parseLimit(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_SESSION_PAGE)
    throw new HttpError(
      400,
      'bad_request',
      `limit must be a whole number from 1 to ${MAX_SESSION_PAGE}, not ${JSON.stringify(text.slice(0, 32))}`,
      {},
      'limit',
    );
  return n;
}

function formatCursor(time: number, id: string): string {
  return Buffer.from(JSON.stringify([time, id])).toString('base64url');
}

function parseCursor(text: string): { time: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isFinite(value[0]) &&
      typeof value[1] === 'string'
    )
      return { time: value[0] as number, id: value[1] };
  } catch {
    // Said below, as any other cursor this server did not hand out.
  }
  throw new HttpError(
    400,
    'bad_request',
    'cursor must be a nextCursor of an earlier GET /sessions answer',
    {},
    'cursor',
  );
}
