import {
  assertSessionId,
  compareSessions,
  formatSessionCursor,
  InvalidSessionIdError,
  listSessionPage,
  pageOf,
  parseSessionCursor,
  type SessionPosition,
  type SessionStore,
  type SessionSummary,
} from '@agentctl/core';
import { HttpError } from './http-error.js';

/** The most sessions one page of `GET /sessions` holds. */
export const MAX_SESSION_PAGE = 1000;

/** What `GET /sessions` asks for: at most `limit` sessions, after the one `cursor` names, children of `parentId`. */
export interface SessionPageParams {
  limit?: string;
  cursor?: string;
  parentId?: string;
}

/** One page of sessions, newest first, and the cursor of the next page when there is one. */
export interface SessionPageAnswer {
  sessions: SessionSummary[];
  nextCursor?: string;
}

/** A checked {@link SessionPageParams}; throws a `400` naming the parameter that is wrong. */
export interface SessionPageRequest {
  limit?: number;
  after?: SessionPosition;
  parentId?: string;
}

const PARAMETERS = ['limit', 'cursor', 'parentId'] as const;

/**
 * The parameters of a `GET /sessions` query (every value of each, by name). One given twice, or one
 * this route does not know, is a `400`: a misspelt `limit` would otherwise answer every session.
 */
export function sessionPageParams(query: Record<string, string[]>): SessionPageParams {
  const params: SessionPageParams = {};
  for (const [name, values] of Object.entries(query)) {
    if (!(PARAMETERS as readonly string[]).includes(name)) {
      const near = PARAMETERS.find(
        (known) => known.toLowerCase() === name.toLowerCase() || closeTo(known, name),
      );
      throw new HttpError(
        400,
        'bad_request',
        `unknown parameter ${JSON.stringify(name.slice(0, 64))}${near ? `; did you mean \`${near}\`?` : ''} (GET /sessions takes ${PARAMETERS.join(', ')})`,
        {},
        name.slice(0, 64),
      );
    }
    if (values.length > 1)
      throw new HttpError(
        400,
        'bad_request',
        `${name} is given ${values.length} times; give it once`,
        {},
        name,
      );
    params[name as (typeof PARAMETERS)[number]] = values[0];
  }
  return params;
}

// One letter added, dropped, changed, or two swapped.
function closeTo(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const rest = (x: string, n: number) => x.slice(i + n);
  return (
    rest(a, 1) === rest(b, 1) ||
    rest(a, 1) === rest(b, 0) ||
    rest(a, 0) === rest(b, 1) ||
    (a[i] === b[i + 1] && a[i + 1] === b[i] && rest(a, 2) === rest(b, 2))
  );
}

/** Checks the parameters before any store is read: a bad page is the caller's mistake, whatever the stores say. */
export function sessionPageRequest(params: SessionPageParams): SessionPageRequest {
  const request: SessionPageRequest = {};
  if (params.limit !== undefined) request.limit = parseLimit(params.limit);
  if (params.cursor !== undefined) request.after = parseCursor(params.cursor);
  if (params.parentId !== undefined) {
    try {
      assertSessionId(params.parentId);
    } catch (error) {
      if (!(error instanceof InvalidSessionIdError)) throw error;
      throw new HttpError(400, 'bad_request', `parentId: ${error.message}`, {}, 'parentId');
    }
    request.parentId = params.parentId;
  }
  return request;
}

/**
 * The page `request` asks for out of every store, newest first by creation (ties by id): each store
 * answers its own page (natively where it can, without reading every summary), and the pages are
 * merged. Without `limit`, every session. A session two stores hold is shown once, as the first has it.
 * The cursor names the last session shown (its creation time and id), not a position: no write
 * moves a session, so the later pages neither skip nor repeat one, and sessions created meanwhile
 * go to the top.
 */
export async function sessionPage(
  stores: readonly SessionStore[],
  request: SessionPageRequest,
): Promise<SessionPageAnswer> {
  const limit = request.limit ?? Number.MAX_SAFE_INTEGER;
  const query = { limit, after: request.after, parentId: request.parentId };
  const seen = new Map<string, SessionSummary>();
  let more = false;
  for (const store of stores) {
    const page =
      request.limit === undefined
        ? await allOf(store, request.parentId)
        : await listSessionPage(store, query);
    for (const s of page.sessions) if (!seen.has(s.id)) seen.set(s.id, s);
    if (page.next) more = true;
  }
  const { items, next } = pageOf(seen.values(), { limit, after: request.after });
  // A store with more than the page holds more than the merged page shows.
  const last = items[items.length - 1];
  const cursor = next ?? (more && last ? { createdAt: last.createdAt, id: last.id } : undefined);
  return cursor ? { sessions: items, nextCursor: formatSessionCursor(cursor) } : { sessions: items };
}

// Every session of a store (no limit asked), in the listing order.
async function allOf(
  store: SessionStore,
  parentId?: string,
): Promise<{ sessions: SessionSummary[]; next?: undefined }> {
  const sessions = await store.list(parentId === undefined ? undefined : { parentId });
  return { sessions: sessions.sort(compareSessions) };
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

function parseCursor(text: string): SessionPosition {
  const position = parseSessionCursor(text);
  if (position) return position;
  throw new HttpError(
    400,
    'bad_request',
    'cursor must be a nextCursor of an earlier GET /sessions answer',
    {},
    'cursor',
  );
}
