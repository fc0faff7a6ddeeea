import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  formatSessionCursor,
  InvalidExportError,
  listSessionPage,
  makeFolders,
  parseSessionCursor,
  SessionBusyError,
  type SessionExport,
  type SessionPageQuery,
  type SessionPosition,
  type SessionStore,
  UsageError,
  waitingParent,
} from '@agentctl/core';
import {
  CorruptSessionError,
  FileSessionStore,
  type FileSessionSummary,
  type RetentionPolicy,
  SessionStoreError,
} from '@agentctl/store-file';
import { EXIT } from '../../cli-error.js';
import { damagedSessionHint } from '../../damaged-session-hint.js';
import { printable } from '../../printable.js';
import { shellQuote } from '../../shell-quote.js';
import { systemRefusal } from '../../system-refusal.js';
import { writeChunksOut } from '../../write-chunks-out.js';
import { writeChunksToFile } from '../../write-chunks-to-file.js';
import { unwritableTarget } from '../../write-target.js';
import { exportText } from './export-text.js';
import { parseJsonBytes } from './parse-json-bytes.js';
import { formatSessionTree } from './session-tree.js';
import { formatSessionsTable, formatTime } from './sessions-table.js';
import { formatTranscript } from './transcript.js';

/** Options of `agentctl sessions`. */
export interface SessionsOptions {
  json?: boolean;
  /** Project root; the default sessions folder is `<project>/.agentctl/sessions`. */
  project?: string;
  /** Sessions folder (from the project's memory spec), relative to the project root. */
  path?: string;
  retention?: RetentionPolicy;
  /** The store to work on (the project's memory); the file store at `path` when left out. */
  store?: SessionsStore;
  /** `list`: one page of at most this many sessions (`--limit`, as typed), newest first. */
  limit?: string;
  /** `list`: the page after the one that printed this cursor (`--cursor`). */
  cursor?: string;
  /**
   * `agentctl sessions ARGS` as the user can type it again from their folder (`-C`, `--memory`):
   * the next page's line, the removal of a damaged session. `agentctl sessions ARGS` when left out.
   */
  typedCommand?: (args: string) => string;
}

/** A store the command works on: it keeps sessions and moves them in and out as exports. */
export interface SessionsStore extends SessionStore {
  exportSession(id: string): Promise<SessionExport>;
  importSession(data: unknown): Promise<string>;
}

/** Where the command writes. */
export interface SessionsIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Aborted once the reader of stdout has gone: an export stops there. */
  outputClosed?: AbortSignal;
  /** Resolves once stdout has handed on what was written to it (see `Io`). */
  stdoutDrained?: () => Promise<void>;
}

const USAGE = 'usage: agentctl sessions list | show <id> | rm <id> | export <id> [file] | import <file>';

/**
 * `agentctl sessions list|show|rm|export|import`; returns the exit code (0 ok, 1 missing or
 * corrupt session or bad file, 2 bad usage). User errors print one line, never a stack.
 */
export async function sessionsCommand(
  action: string,
  args: string[],
  options: SessionsOptions,
  io: SessionsIo,
): Promise<number> {
  const root = resolve(options.project ?? process.cwd());
  const store =
    options.store ??
    new FileSessionStore({
      path: resolve(root, options.path ?? '.agentctl/sessions'),
      retention: options.retention,
    });
  const where = whereOf(store);
  const fail = (message: string, code = 1) => {
    io.stderr(`agentctl: ${message}\n`);
    return code;
  };
  const needs = (count: number) => args.length < count || args.length > count + (action === 'export' ? 1 : 0);
  try {
    const listing = action === 'list' || action === 'ls';
    if (!listing && (options.limit !== undefined || options.cursor !== undefined))
      return fail(`--limit and --cursor are options of \`sessions list\`, not of \`sessions ${action}\``, 2);
    switch (action) {
      case 'list':
      case 'ls':
        if (args.length > 0) return fail(USAGE, 2);
        if (options.limit !== undefined || options.cursor !== undefined)
          return await listPage(store, where, pageQuery(options), options, io);
        return await list(store, where, options, io);
      case 'show':
        if (needs(1)) return fail(USAGE, 2);
        return await show(store, where, args[0]!, options, io);
      case 'rm': {
        if (needs(1)) return fail(USAGE, 2);
        const id = args[0]!;
        // A child its parent's pause goes through: removed, the parent could never be resumed.
        const child = await store.get(id).catch(() => undefined);
        const top = child?.checkpoint !== undefined ? await waitingParent(store, child) : undefined;
        if (top)
          return fail(
            `session ${id} is paused inside session ${top.id}, which waits on it through an agent tool; it was not removed (resume ${top.id}, or remove ${top.id}, which removes it too)`,
          );
        // A run holding the session would fail mid-way writing to a session that is gone.
        const held = await store.lease(id, { holder: 'agentctl sessions rm', ttlMs: 60_000 });
        if ('busy' in held)
          return fail(`${new SessionBusyError(id, held.busy, 0).message}; it was not removed`);
        let deleted: boolean;
        try {
          deleted = await store.delete(id);
        } finally {
          await store.releaseLease(held.lease);
        }
        if (!deleted) return fail(`no session ${id} in ${where}`);
        io.stdout(options.json ? `${JSON.stringify({ id, deleted: true })}\n` : `removed ${id}\n`);
        return 0;
      }
      case 'export': {
        if (needs(1)) return fail(USAGE, 2);
        const blocked =
          args[1] === undefined || args[1] === '-' ? undefined : unwritableTarget(resolve(args[1]));
        if (blocked) return fail(`sessions export: ${blocked}; give the path of a file`, 2);
        const text = exportText(await store.exportSession(args[0]!));
        if (args[1] === undefined || args[1] === '-') {
          if (!(await writeChunksOut(io, text))) return EXIT.outputClosed;
        } else {
          const target = args[1];
          // Like `schema --write`: the folder is made, and a path that cannot be written is one line.
          await makeFolders(dirname(resolve(target)))
            .then(() => writeChunksToFile(resolve(target), text))
            .catch((error: NodeJS.ErrnoException) => {
              throw new UserFileError(
                `cannot write ${target}: ${systemRefusal(error) ?? error.code ?? error.message}`,
              );
            });
          io.stderr(`exported ${args[0]} to ${target}\n`);
        }
        return 0;
      }
      case 'import': {
        if (needs(1)) return fail(USAGE, 2);
        const data = await readJson(args[0]!);
        const id = await store.importSession(data).catch((error: unknown) => {
          if (error instanceof InvalidExportError) throw new UserFileError(`${args[0]}: ${error.message}`);
          throw error;
        });
        io.stdout(options.json ? `${JSON.stringify({ id })}\n` : `imported ${id}\n`);
        return 0;
      }
      default:
        return fail(`unknown sessions action ${JSON.stringify(action)}\n${USAGE}`, 2);
    }
  } catch (error) {
    if (error instanceof UserFileError || (await isStoreError(error))) return fail((error as Error).message);
    if (error instanceof UsageError) return fail(error.message, 2);
    throw error;
  } finally {
    // A store given by the caller is the caller's to close.
    if (!options.store) await store.close?.();
  }
}

/** Where the store keeps sessions, for messages: a folder, or a server with its password hidden. */
function whereOf(store: SessionsStore): string {
  if (store instanceof FileSessionStore) return store.path;
  const where = (store as { where?: unknown }).where;
  return typeof where === 'string' ? where : 'the session store';
}

/** A store's own refusal (a missing or taken session, a bad export, a lost server): one line for the user. */
async function isStoreError(error: unknown): Promise<boolean> {
  if (error instanceof SessionStoreError || error instanceof InvalidExportError) return true;
  // Only a postgres store throws these, and it has loaded the package already.
  if (!(error instanceof Error) || !error.name.startsWith('Postgres')) return false;
  const pg = await import('@agentctl/store-postgres');
  return error instanceof pg.PostgresStoreError || error instanceof pg.PostgresConnectionError;
}

/** The sessions with, for the file store, every file checked (corrupt ones marked). */
function listAll(store: SessionsStore): Promise<FileSessionSummary[]> {
  return store instanceof FileSessionStore ? store.list({ verify: true }) : store.list();
}

async function list(
  store: SessionsStore,
  where: string,
  options: SessionsOptions,
  io: SessionsIo,
): Promise<number> {
  const sessions = await listAll(store);
  if (options.json) {
    io.stdout(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    io.stdout(`no sessions in ${where}\n`);
    return 0;
  }
  io.stdout(`${formatSessionsTable(sessions)}\n`);
  for (const s of sessions) if (s.corrupt) io.stderr(`agentctl: ${s.corrupt}\n`);
  return 0;
}

/** The most sessions one `sessions list --limit` page holds (as one page of `GET /sessions`). */
const MAX_PAGE = 1000;

// `--limit` and `--cursor` checked before any store is read: a usage mistake, exit 2.
function pageQuery(options: SessionsOptions): SessionPageQuery {
  const text = options.limit;
  if (text === undefined) throw new UsageError('--cursor needs --limit: the size of the page it starts');
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_PAGE)
    throw new UsageError(
      `--limit must be a whole number from 1 to ${MAX_PAGE}, not ${JSON.stringify(text.slice(0, 32))}`,
    );
  const query: SessionPageQuery = { limit: Number(text) };
  if (options.cursor !== undefined) {
    const after = parseSessionCursor(options.cursor);
    if (!after)
      throw new UsageError(
        '--cursor must be a cursor an earlier `sessions list --limit` printed, as printed',
      );
    query.after = after;
  }
  return query;
}

/**
 * One page of the listing, newest first by creation (ties by id), read natively by the store; the
 * cursor of the next page goes to stderr (text) or into the JSON. Only the page's files are checked.
 */
async function listPage(
  store: SessionsStore,
  where: string,
  query: SessionPageQuery,
  options: SessionsOptions,
  io: SessionsIo,
): Promise<number> {
  const page: { sessions: FileSessionSummary[]; next?: SessionPosition } =
    store instanceof FileSessionStore
      ? await store.listPage({ ...query, verify: true })
      : await listSessionPage(store, query);
  const nextCursor = page.next && formatSessionCursor(page.next);
  if (options.json) {
    io.stdout(
      `${JSON.stringify(nextCursor ? { sessions: page.sessions, nextCursor } : { sessions: page.sessions }, null, 2)}\n`,
    );
    return 0;
  }
  if (page.sessions.length === 0) io.stdout(`no ${query.after ? 'more ' : ''}sessions in ${where}\n`);
  else io.stdout(`${formatSessionsTable(page.sessions, { keepOrder: true })}\n`);
  for (const s of page.sessions) if (s.corrupt) io.stderr(`agentctl: ${s.corrupt}\n`);
  if (nextCursor) {
    io.stderr(`more: ${typed(options, 'list')} --limit ${query.limit} --cursor ${nextCursor}\n`);
  }
  return 0;
}

async function show(
  store: SessionsStore,
  where: string,
  id: string,
  options: SessionsOptions,
  io: SessionsIo,
): Promise<number> {
  let session: Awaited<ReturnType<SessionsStore['get']>>;
  try {
    session = await store.get(id);
  } catch (error) {
    if (error instanceof CorruptSessionError) {
      io.stderr(
        `agentctl: ${error.message}\n${damagedSessionHint(error, typed(options, `rm ${shellQuote(id)}`))}\n`,
      );
      return 1;
    }
    throw error;
  }
  if (!session) {
    io.stderr(`agentctl: no session ${id} in ${where}\n`);
    return 1;
  }
  if (options.json) {
    return (await writeChunksOut(io, exportText(await store.exportSession(id)))) ? 0 : EXIT.outputClosed;
  }
  const all = await listAll(store);
  const header = [
    `session ${session.id}${session.agent ? ` (agent ${printable(session.agent)})` : ''}`,
    `created ${formatTime(session.createdAt)}, updated ${formatTime(session.updatedAt)}, ${session.events.length} events${session.checkpoint !== undefined ? ', paused' : ''}`,
  ];
  if (session.parentId)
    header.push(
      `child of ${printable(session.parentId)}${session.parentCallId ? ` via ${printable(session.parentCallId)}` : ''}`,
    );
  const transcript = formatTranscript(session);
  const tree = formatSessionTree(session.id, all);
  const out = [...header, '', ...(transcript.length > 0 ? transcript : ['(no messages yet)'])];
  if (Object.keys(session.state).length > 0)
    out.push('', `state: ${printable(JSON.stringify(session.state))}`);
  if (tree.length > 0) out.push('', 'child sessions:', ...tree);
  io.stdout(`${out.join('\n')}\n`);
  return 0;
}

/** A file given on the command line that cannot be read as JSON. */
class UserFileError extends Error {}

async function readJson(file: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    // As bytes: the text of an export over 512 MB is longer than any string.
    bytes = await readFile(resolve(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (code ?? String(error));
    throw new UserFileError(`cannot read ${file}: ${why}`);
  }
  try {
    return parseJsonBytes(bytes);
  } catch (error) {
    throw new UserFileError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

function typed(options: SessionsOptions, args: string): string {
  return options.typedCommand?.(args) ?? `agentctl sessions ${args}`;
}
