import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { resolveUserScope, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';

/** How long and how many ended A2A tasks a server keeps for `tasks/get` and `tasks/list`. */
export interface TaskRetention {
  /** Milliseconds an ended task stays after it ended; default one hour. */
  ttlMs?: number;
  /** Ended tasks kept at most (the oldest go first); default 10,000. */
  max?: number;
  /** The clock, for tests. */
  now?: () => number;
}

const DEFAULT_TTL_MS = 60 * 60 * 1000;
const DEFAULT_MAX = 10_000;
const DEFAULT_PAGE_SIZE = 50;

// A task in one of these states will not change again: it may go once its time is up.
const ENDED = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

interface Stored {
  task: Task;
  scope: string;
}

/**
 * The A2A tasks of a server, in memory and bounded: every task that is still going (working, or
 * waiting for input) is kept; ended ones are kept for `ttlMs` and at most `max` of them, so a
 * long-running server does not keep every task it ever ran. Each caller's tasks are apart (by
 * tenant and user, as in the SDK's own store). A task that is gone is not found; its conversation
 * is in the session store under its context id.
 */
export class BoundedTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Stored>();
  // Ended tasks by the time they ended, oldest first (a Map keeps insertion order).
  readonly #ended = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(retention: TaskRetention = {}) {
    this.#ttlMs = retention.ttlMs ?? DEFAULT_TTL_MS;
    this.#max = retention.max ?? DEFAULT_MAX;
    this.#now = retention.now ?? Date.now;
  }

  /** Tasks held now, ended or not. */
  get size(): number {
    return this.#tasks.size;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = keyOf(task.id, scopeOf(context));
    this.#tasks.set(key, { task: compacted(copyOf(task)), scope: scopeOf(context) });
    this.#ended.delete(key);
    const state = task.status?.state;
    if (state !== undefined && ENDED.has(state)) this.#ended.set(key, this.#now());
    this.#evict();
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    this.#evict();
    const stored = this.#tasks.get(keyOf(taskId, scopeOf(context)));
    return stored && copyOf(stored.task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    this.#evict();
    const scope = scopeOf(context);
    const { contextId, status, statusTimestampAfter, pageToken } = params;
    const pageSize = params.pageSize || DEFAULT_PAGE_SIZE;
    const after = statusTimestampAfter ? new Date(statusTimestampAfter).getTime() : undefined;
    let tasks: Task[] = [];
    for (const stored of this.#tasks.values()) {
      const task = stored.task;
      if (stored.scope !== scope) continue;
      if (contextId && task.contextId !== contextId) continue;
      if (status && task.status?.state !== status) continue;
      if (
        after !== undefined &&
        !(task.status?.timestamp && new Date(task.status.timestamp).getTime() > after)
      )
        continue;
      tasks.push(task);
    }
    // Newest first, as the SDK's store lists them; the page token names the last task of a page.
    tasks.sort((a, b) => compareTasks(a.status?.timestamp ?? '', a.id, b.status?.timestamp ?? '', b.id));
    const totalSize = tasks.length;
    if (pageToken) {
      // The tasks after the token's place in the order, not after the task it names: that task may
      // have moved (a new status) or gone (evicted) since, and the listing goes on all the same.
      const cursor = decodePageToken(pageToken);
      tasks = tasks.filter(
        (t) => compareTasks(t.status?.timestamp ?? '', t.id, cursor.timestamp, cursor.id) > 0,
      );
    }
    const page = tasks.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      tasks: page.map((task) => {
        const copy = copyOf(task);
        if (!params.includeArtifacts) copy.artifacts = [];
        return copy;
      }),
      nextPageToken:
        last && tasks.length > page.length ? encodePageToken(last.status?.timestamp ?? '', last.id) : '',
      pageSize,
      totalSize,
    };
  }

  // Ended tasks past their time, then the oldest beyond the count; both from the front of the list.
  #evict(): void {
    const expired = this.#now() - this.#ttlMs;
    for (const [key, endedAt] of this.#ended) {
      if (endedAt >= expired && this.#ended.size <= this.#max) break;
      this.#ended.delete(key);
      this.#tasks.delete(key);
    }
  }
}

// Newest status first, ties by id (last first); code units, as the page token's place is compared.
function compareTasks(timeA: string, idA: string, timeB: string, idB: string): number {
  if (timeA !== timeB) return timeA < timeB ? 1 : -1;
  return idA === idB ? 0 : idA < idB ? 1 : -1;
}

/**
 * A deep copy that shares strings (they cannot change): the SDK loads and saves a task on every
 * event of its run, and a copy of its text on each would make a long answer cost the square of its
 * length (a server spinning on one task).
 */
function copyOf<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyOf) as T;
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (value instanceof Uint8Array) return value.slice() as T;
  if (value instanceof Date) return new Date(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = copyOf(field);
  return copy as T;
}

type Part = Task['artifacts'][number]['parts'][number];

// An artifact streamed as one part per text delta is kept as one text part: its text is the same,
// and the SDK copies the parts of the artifact on every delta it appends.
function compacted(task: Task): Task {
  for (const artifact of task.artifacts ?? []) {
    const parts: Part[] = [];
    for (const part of artifact.parts) {
      const last = parts.at(-1);
      if (last && mergeable(last) && mergeable(part) && last.mediaType === part.mediaType) {
        const text = (last.content as { value: string }).value + (part.content as { value: string }).value;
        parts[parts.length - 1] = { ...last, content: { $case: 'text', value: text } };
      } else parts.push(part);
    }
    artifact.parts = parts;
  }
  return task;
}

function mergeable(part: Part): boolean {
  return part.content?.$case === 'text' && part.metadata === undefined && !part.filename;
}

function scopeOf(context: ServerCallContext): string {
  return `${context.tenant ?? ''}\u0000${resolveUserScope(context)}`;
}

function keyOf(taskId: string, scope: string): string {
  return `${scope}\u0000${taskId}`;
}

function encodePageToken(timestamp: string, id: string): string {
  return Buffer.from(`${timestamp}|${id}`).toString('base64');
}

function decodePageToken(token: string): { timestamp: string; id: string } {
  const [timestamp, ...id] = Buffer.from(token, 'base64').toString('utf8').split('|');
  if (id.length === 0) throw new RequestMalformedError('Invalid page token format.');
  return { timestamp: timestamp ?? '', id: id.join('|') };
}
