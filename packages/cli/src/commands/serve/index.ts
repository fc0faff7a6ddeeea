import {
  type Diagnostic,
  formatAgentChanges,
  formatDiagnostic,
  type Generation,
  type ProjectWatch,
  type QueueSettings,
  watchProject,
  watchRunCode,
} from '@agentctl/config';
import {
  type AgentSource,
  createApp,
  formatAccessLog,
  PAGE_PATH,
  ProjectStatusBoard,
  type QueuedRuns,
  startServer,
} from '@agentctl/server';
import { CliError, EXIT } from '../../cli-error.js';
import { closeWithin } from '../../close-within.js';
import { defaultRegistry } from '../../default-registry.js';
import type { Io } from '../../io.js';
import { pageDir } from '../../page-dir.js';
import { checkModelOption, emptyFolder, openRuntime } from '../../project.js';
import { connectQueue, queueSettings } from '../../queue-settings.js';
import { projectSessionStore } from '../../session-store.js';
import { traceSecrets } from '../../tracing.js';
import { unknownAgent } from '../../unknown-agent.js';
import { nextStop, untilStopped } from '../../until-stopped.js';
import { untilValid } from '../../until-valid.js';
import { watchErrorReporter } from '../../watch-error-reporter.js';
import { brokenStartSource } from './broken-start-source.js';
import { projectSource, type RuntimeLease } from './project-source.js';
import { serveOptions } from './serve-options.js';
import { WatchedQueue } from './watched-queue.js';

/**
 * `agentctl serve`: the project's agents over HTTP (native API, OpenAI-compatible, A2A, and with
 * `--ui` the dev UI) until SIGTERM or SIGINT, which drain runs in flight for `--grace` before
 * cancelling them. `agentctl dev --ui` comes here too, watching, with `agent` for the page to open.
 */
export async function serveCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const options = serveOptions(raw, io.env);
  // A missing page is said before anything starts.
  const page = options.ui ? pageDir(io.env) : undefined;
  const appOf = (source: AgentSource, queue?: QueuedRuns) =>
    createApp({
      source,
      queue,
      tokens: options.tokens,
      maxRuns: options.maxRuns,
      maxFollowers: options.maxFollowers,
      runTimeoutMs: options.runTimeoutMs,
      maxBodyBytes: options.maxBodyBytes,
      maxStreamBufferBytes: options.maxStreamBufferBytes,
      exposeErrors: options.exposeErrors,
      corsOrigins: options.corsOrigins,
      publicUrl: options.publicUrl,
      trustProxy: options.trustProxy,
      heartbeatMs: options.heartbeatMs,
      // Without a token the server is on loopback (serveOptions sees to it): it answers only there.
      localOnly: options.tokens.length === 0,
      pageDir: page,
      log: (entry) => io.stderr(formatAccessLog(entry, options.logFormat)),
      errorLog: io.stderr,
    });
  // A project broken at start is served as broken until a save fixes it: the page shows what is
  // wrong, and a request is answered (503) rather than left hanging on a held port.
  const whileBroken = async (root: string, status: ProjectStatusBoard): Promise<HeldPort> => {
    const { app, tracker } = appOf(brokenStartSource(root, status));
    const server = await startServer(app, tracker, options.host, options.port).catch((error: unknown) => {
      throw new CliError(
        `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
        EXIT.usage,
      );
    });
    return {
      port: server.port,
      url: page
        ? pageUrl(options.publicUrl ?? server.url, options.tokens[0], undefined)
        : `${server.url}/project/status`,
      close: async () => void (await server.shutdown(0)),
    };
  };
  const project = options.watch ? await watchedRuntime(raw, io, whileBroken) : await fixedRuntime(raw, io);
  const agent = raw.agent === undefined ? undefined : String(raw.agent);
  if (agent !== undefined) await checkAgent(project, agent);
  const store = await projectSessionStore(project.root);
  const source = projectSource(project.acquire, store, project);
  const queue = await openQueue(project.queue).catch(async (error: unknown) => {
    await project.close();
    throw error;
  });
  const { app, tracker } = appOf(source, queue);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    // Where the page already is, when the project started broken and was served as such.
    server = await startServer(app, tracker, options.host, project.port ?? options.port);
  } catch (error) {
    await project.close();
    await queue?.close();
    throw new CliError(
      `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
      EXIT.usage,
    );
  }
  // A tool that holds the thread past its timeout is named; the server's other runs wait for it,
  // but ending the process would end every one of them.
  const unwatch = watchRunCode({ fatal: false });
  io.stdout(`listening on ${server.url}\n`);
  if (page) io.stdout(`ui: ${pageUrl(options.publicUrl ?? server.url, options.tokens[0], agent)}\n`);
  await untilStopped();
  unwatch();
  io.stderr(`shutting down: ${tracker.size} run(s) in flight, up to ${options.graceMs} ms to finish\n`);
  // A second signal cuts the grace short: the runs left are cancelled now, their sessions valid.
  const hurry = nextStop();
  hurry.signal.addEventListener('abort', () =>
    io.stderr(`second signal: cancelling the ${tracker.size} run(s) still in flight now\n`),
  );
  const { finished, cancelled, unended } = await server.shutdown(options.graceMs, hurry.signal);
  hurry.dispose();
  const left =
    unended > 0
      ? ` (${unended} did not end in the wind-down after being cancelled: a session store that does not answer, or a tool that does not stop; what they stored stays, and their sessions free themselves when their leases lapse)`
      : '';
  io.stderr(`stopped: ${finished} run(s) finished, ${cancelled} cancelled${left}\n`);
  await closeWithin(io, async () => {
    await project.close();
    await queue?.close();
    await (store as { close?: () => Promise<void> }).close?.();
  });
  return EXIT.ok;
}

/**
 * The address that opens the page: signed in with the first token, on `agent` when one was named.
 * `base` is where clients reach the server (`--public-url`, path included), else where it listens.
 */
function pageUrl(base: string, token: string | undefined, agent: string | undefined): string {
  // A browser cannot open the wildcard address a server listens on: this machine's loopback can.
  const url = new URL(base);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (url.hostname === '[::]') url.hostname = '[::1]';
  const root = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  const hash = agent ? `#agent=${encodeURIComponent(agent)}` : '';
  return `${root}${PAGE_PATH}/${query}${hash}`;
}

async function checkAgent(project: ServedProject, name: string): Promise<void> {
  const held = project.acquire();
  const names = held ? [...held.runtime.specs.agent.keys()].sort() : [];
  held?.release();
  if (names.includes(name)) return;
  await project.close();
  throw unknownAgent(name, names);
}

// With a queue URL, `async: true` runs go to the workers and any node streams their events.
async function openQueue(settings: QueueSettings) {
  if (!settings.url) return undefined;
  const { RunQueue } = await import('@agentctl/queue');
  const connection = await connectQueue(settings.url, settings.urlFrom);
  const queue = new RunQueue(connection, {
    attempts: settings.attempts,
    backoff: settings.backoff,
    project: settings.project,
  });
  return {
    enqueue: queue.enqueue.bind(queue),
    exists: queue.exists.bind(queue),
    follow: queue.follow.bind(queue),
    depth: queue.depth.bind(queue),
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

/** The port served while a watched project that started broken waits for its fix. */
interface HeldPort {
  port: number;
  /** What to open meanwhile: the page (with --ui), or the reload state. */
  url: string;
  close(): Promise<void>;
}

interface ServedProject {
  root: string;
  /** The port the project was served on while broken at start, which it keeps. */
  port?: number;
  /** The project's queue settings (with --watch, those of the first good generation). */
  queue: QueueSettings;
  acquire: () => RuntimeLease | undefined;
  /** The reload state the page shows. */
  status: ProjectStatusBoard;
  close(): Promise<void>;
}

async function fixedRuntime(raw: Record<string, unknown>, io: Io): Promise<ServedProject> {
  const { project, runtime } = await openRuntime(raw, io, undefined, { requireKeys: 'warn' });
  return {
    root: runtime.root,
    queue: queueSettings(project, io.env),
    acquire: () => ({ runtime, generation: 1, release: () => undefined }),
    status: new ProjectStatusBoard(false, 1),
    close: () => runtime.dispose(),
  };
}

// Like `dev`: each save builds a new generation; a run keeps the one it started on. A project
// broken at start is waited on, its port held meanwhile, until a save makes it good.
async function watchedRuntime(
  raw: Record<string, unknown>,
  io: Io,
  whileBroken: (root: string, status: ProjectStatusBoard) => Promise<HeldPort>,
): Promise<ServedProject> {
  // The flag is the user's, not a YAML line: waiting for a save would never fix it.
  await checkModelOption(raw, io);
  const queue = new WatchedQueue(io.env, io.stderr);
  let watch: ProjectWatch | undefined;
  let firstFailure: Diagnostic[] = [];
  let firstWarnings: readonly Diagnostic[] = [];
  const status = new ProjectStatusBoard(true, null);
  let arrived: (generation: Generation) => void = () => undefined;
  const firstGood = new Promise<Generation>((resolve) => {
    arrived = resolve;
  });
  watch = await watchProject(
    io.cwd,
    (generation, warnings) => {
      traceSecrets(generation.runtime);
      queue.see(generation.runtime);
      // The first build's warnings wait until the folder is known to hold a project.
      if (watch) for (const d of warnings) io.stderr(`${formatDiagnostic(d)}\n`);
      else firstWarnings = warnings;
      // Generation 1 is announced too when a save brought it (the project was broken at start).
      const changes = watch ? formatAgentChanges(generation.changes) : undefined;
      if (changes) io.stderr(`[reload] generation ${generation.id} live: ${changes}\n`);
      status.reloaded(generation.id, changes);
      arrived(generation);
    },
    (diagnostics) => {
      if (!watch) firstFailure = diagnostics;
      else {
        const text = diagnostics.map((d) => `  ${formatDiagnostic(d)}\n`).join('');
        const serving = watch.current ? `still serving generation ${watch.current.id}` : 'nothing served yet';
        io.stderr(`[reload] failed; ${serving}:\n${text}`);
        status.failed(diagnostics);
      }
    },
    {
      project: raw.project as string | undefined,
      registry: defaultRegistry(),
      env: io.env,
      model: raw.model as string | undefined,
      requireKeys: 'warn',
      onWatchError: watchErrorReporter(io),
    },
  );
  const live = watch;
  let first = live.current;
  let port: number | undefined;
  if (!first) {
    for (const d of firstFailure) io.stderr(`${formatDiagnostic(d)}\n`);
    const errors = firstFailure.filter((d) => d.severity === 'error').length;
    status.failed(firstFailure);
    let held: HeldPort | undefined;
    try {
      // A port in use is a bad command line: said now, not after the fix.
      held = await whileBroken(live.root, status);
      port = held.port;
      io.stderr(
        `agentctl: ${errors} error(s) in the project; fix them and save: serving starts as soon as the project is valid (Ctrl-C stops); meanwhile ${held.url} shows what is wrong\n`,
      );
      first = await untilValid(firstGood);
    } catch (error) {
      await live.close();
      throw error;
    } finally {
      await held?.close();
    }
  }
  // A folder with no project is refused as `serve` without --watch refuses it.
  const empty = emptyFolder(live.root, first.runtime.specs.agent.size, raw.project !== undefined);
  if (empty) {
    await live.close();
    throw empty;
  }
  for (const d of firstWarnings) io.stderr(`${formatDiagnostic(d)}\n`);
  let settings: QueueSettings;
  try {
    settings = queue.settings;
  } catch (error) {
    await live.close();
    throw error;
  }
  io.stderr(`watching ${live.root} for changes\n`);
  return {
    root: live.root,
    port,
    queue: settings,
    acquire: () => {
      const held = live.acquire();
      return (
        held && { runtime: held.generation.runtime, generation: held.generation.id, release: held.release }
      );
    },
    status,
    close: () => live.close(),
  };
}
