import type { InvocationCheckpoint } from './agent-config.js';
import { eventShapeProblem } from './event-shape.js';
import type { Message } from './messages.js';
import { isPlainObject } from './plain-object.js';
import { childCallsProblem, promisedCallsProblem } from './promised-calls.js';
import type { Session } from './session.js';

/** The session layout version every store reads and writes. */
export const SESSION_FORMAT_VERSION = 1;

/** A session as stores keep and export it: the core session plus the conversation saved through `MemoryProvider`. */
export interface StoredSession extends Session {
  /** The conversation saved through the `MemoryProvider` interface, when any. */
  messages?: Message[];
}

/** A session and its child sessions as one JSON document, for `export` and `import` between any stores. */
export interface SessionExport {
  format: 'agentctl-session';
  version: 1;
  session: StoredSession;
  children: SessionExport[];
}

/** Data given to a store's `importSession` that is not a {@link SessionExport}. */
export class InvalidExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** What is wrong with a parsed value as a stored session, or undefined when nothing is. */
export function sessionShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const session = value as Record<string, unknown>;
  if (session.version !== SESSION_FORMAT_VERSION) {
    return `unsupported version ${JSON.stringify(session.version)} (this agentctl reads version ${SESSION_FORMAT_VERSION})`;
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
  for (let i = 0; i < session.events.length; i++) {
    const problem = eventShapeProblem(session.events[i]);
    if (problem) return `events[${i}]: ${problem}`;
  }
  return undefined;
}

/** Checks that `data` is a {@link SessionExport}; throws {@link InvalidExportError} naming the offending part when not. */
export function assertSessionExport(data: unknown, where = 'export'): asserts data is SessionExport {
  assertExportShape(data, where);
  // Checked before a store writes anything: a second session of the same id would fail only once
  // the first was written, and leave the export half imported.
  const seen = new Set<string>();
  for (const session of flattenExport(data)) {
    if (seen.has(session.id))
      throw new InvalidExportError(`${where}: session id ${JSON.stringify(session.id)} appears twice`);
    seen.add(session.id);
  }
  checkPromisedCalls(data, where);
}

// A paused session of the export must show for a decision the very calls a resume would run: an
// export is data from anywhere, and approving what it shows must not run something else.
function checkPromisedCalls(data: SessionExport, where: string): void {
  // Stores keep a checkpoint as it is given; a runner's pause (calls waiting for a decision) is checked.
  const checkpoint = data.session.checkpoint;
  if (isRunnerPause(checkpoint)) {
    const problem =
      promisedCallsProblem(data.session, checkpoint) ??
      childCallsProblem(
        checkpoint.pending,
        data.children.map((c) => c.session),
      );
    if (problem) throw new InvalidExportError(`${where}: session ${data.session.id}: ${problem}`);
  }
  data.children.forEach((child, i) => {
    checkPromisedCalls(child, `${where}.children[${i}]`);
  });
}

function isRunnerPause(value: unknown): value is InvocationCheckpoint {
  return isPlainObject(value) && Array.isArray(value.pending) && value.pending.every(isPendingShape);
}

function isPendingShape(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    isPlainObject(value.call) &&
    typeof value.call.id === 'string' &&
    typeof value.call.name === 'string'
  );
}

function assertExportShape(data: unknown, where: string): asserts data is SessionExport {
  if (typeof data !== 'object' || data === null) throw new InvalidExportError(`${where}: not a JSON object`);
  const value = data as Partial<SessionExport>;
  if (value.format !== 'agentctl-session')
    throw new InvalidExportError(`${where}: "format" must be "agentctl-session"`);
  if (value.version !== 1)
    throw new InvalidExportError(`${where}: unsupported version ${JSON.stringify(value.version)}`);
  const problem = sessionShapeProblem(value.session);
  if (problem) throw new InvalidExportError(`${where}: session: ${problem}`);
  if (!Array.isArray(value.children)) throw new InvalidExportError(`${where}: "children" must be a list`);
  value.children.forEach((child, i) => {
    assertExportShape(child, `${where}.children[${i}]`);
    if (child.session.parentId !== value.session?.id) {
      throw new InvalidExportError(`${where}.children[${i}]: parentId does not match ${value.session?.id}`);
    }
  });
}

/** Every session of an export, parents before children. */
export function flattenExport(data: SessionExport): StoredSession[] {
  return [data.session, ...data.children.flatMap(flattenExport)];
}

/** Reads session `id` and, recursively, its child sessions from a store as one export document. */
export async function exportSessionTree(
  store: {
    get(id: string): Promise<StoredSession | undefined>;
    list(filter: { parentId: string }): Promise<ReadonlyArray<{ id: string }>>;
  },
  id: string,
  missing: (id: string) => Error,
): Promise<SessionExport> {
  const session = await store.get(id);
  if (!session) throw missing(id);
  const children = await store.list({ parentId: id });
  return {
    format: 'agentctl-session',
    version: 1,
    session,
    children: await Promise.all(children.map((c) => exportSessionTree(store, c.id, missing))),
  };
}
