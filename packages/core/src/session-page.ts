import type { SessionStore, SessionSummary } from './session.js';

/** A place in the listing order: just after the session created at `createdAt` with id `id`. */
export interface SessionPosition {
  createdAt: number;
  id: string;
}

/** What a page of sessions asks for: at most `limit` sessions after `after`, of `parentId`'s children only. */
export interface SessionPageQuery {
  limit: number;
  after?: SessionPosition;
  parentId?: string;
}

/** One page of sessions in listing order, and where the next page starts when more follow. */
export interface SessionPage {
  sessions: SessionSummary[];
  next?: SessionPosition;
}

/** What the listing order needs of a session. */
interface Listed {
  id: string;
  createdAt: number;
  parentId?: string;
}

/**
 * The listing order: newest first by creation, ties by id (last first, by UTF-16 code units, which
 * for the ASCII ids sessions have is PostgreSQL's `COLLATE "C"`). No write changes a session's
 * place, so a cursor neither skips nor repeats a session whatever is written between pages.
 */
export function compareSessions(a: Listed, b: Listed): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Whether `session` comes after `position` in the listing order. */
export function comesAfter(session: Listed, position: SessionPosition): boolean {
  return (
    session.createdAt < position.createdAt ||
    (session.createdAt === position.createdAt && session.id < position.id)
  );
}

/** Throws unless `limit` is a whole number of at least 1 (a page of none, or of half a session, has no last session to resume after). */
export function assertPageLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`a page's limit must be a whole number of at least 1, not ${limit}`);
}

/**
 * The page `query` asks for out of `all` (any order), in O(n log limit): a bounded heap keeps the
 * `limit + 1` first, so listing a page of 20 out of 100,000 sorts 21, not 100,000.
 */
export function pageOf<T extends Listed>(
  all: Iterable<T>,
  query: SessionPageQuery,
): { items: T[]; next?: SessionPosition } {
  assertPageLimit(query.limit);
  const { after, parentId } = query;
  const keep = query.limit + 1;
  // A max-heap on the listing order: its top is the worst of the kept, the first to go.
  const heap: T[] = [];
  for (const item of all) {
    if (parentId !== undefined && item.parentId !== parentId) continue;
    if (after && !comesAfter(item, after)) continue;
    if (heap.length < keep) {
      heap.push(item);
      siftUp(heap, heap.length - 1);
    } else if (compareSessions(item, heap[0]!) < 0) {
      heap[0] = item;
      siftDown(heap, 0);
    }
  }
  heap.sort(compareSessions);
  if (heap.length <= query.limit) return { items: heap };
  const items = heap.slice(0, query.limit);
  const last = items[items.length - 1]!;
  return { items, next: { createdAt: last.createdAt, id: last.id } };
}

function siftUp<T extends Listed>(heap: T[], i: number): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (compareSessions(heap[i]!, heap[parent]!) <= 0) return;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function siftDown<T extends Listed>(heap: T[], i: number): void {
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let worst = i;
    if (left < heap.length && compareSessions(heap[left]!, heap[worst]!) > 0) worst = left;
    if (right < heap.length && compareSessions(heap[right]!, heap[worst]!) > 0) worst = right;
    if (worst === i) return;
    [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
    i = worst;
  }
}

/**
 * A page of `store`'s sessions: through its own `listPage` when it has one, else (a store written
 * before paging) out of its whole `list`.
 */
export async function listSessionPage(store: SessionStore, query: SessionPageQuery): Promise<SessionPage> {
  assertPageLimit(query.limit);
  if (store.listPage) return store.listPage(query);
  const all = await store.list(query.parentId === undefined ? undefined : { parentId: query.parentId });
  const { items, next } = pageOf(all, query);
  return next ? { sessions: items, next } : { sessions: items };
}

/** The text of a cursor that resumes a listing at `position` (opaque to users). */
export function formatSessionCursor(position: SessionPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

// Dates JavaScript can hold; anything beyond is no creation time (and overflows PostgreSQL's bigint).
const MAX_TIME = 8.64e15;
const CURSOR_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The position a cursor made by {@link formatSessionCursor} names, or undefined for any other text
 * (a cursor edited by hand, cut short, or of another server): its id must be in the alphabet of session ids.
 */
export function parseSessionCursor(text: string): SessionPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [createdAt, id] = value as unknown[];
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt) || Math.abs(createdAt) > MAX_TIME)
    return undefined;
  if (typeof id !== 'string' || !CURSOR_ID.test(id)) return undefined;
  return { createdAt, id };
}
