import { AsyncLocalStorage } from 'node:async_hooks';
import { writeSync } from 'node:fs';
import { type Middleware, observeRuns } from '@agentctl/core';
import { moduleLoadLimitMs } from '../watch/module-load-limit.js';
import { type WatchedWork, watchMainThread } from './main-thread-watchdog.js';
import { type markProjectCode, runsProjectCode } from './project-code.js';
import { sameMiddleware } from './same-middleware.js';

// Whether, and how, this process watches what its runs call (set by watchRunCode).
let watching: { fatal: boolean } | undefined;

// What is running now, by watch, with the scope it runs in: named when a run is found waiting on
// something nothing can settle, or out of time.
const running = new Map<number, { description: string; scope: unknown }>();
let watches = 0;

// The runs of one process told apart (each test of `agentctl test`), through their async calls.
const scopes = new AsyncLocalStorage<unknown>();

/** When a scope's runs must be done (a test's `timeout:`), and what set it, for the message. */
export interface RunCodeDeadline {
  /** Epoch milliseconds. */
  at: number;
  /** What ends then: ``the 1 s timeout of test `x` ``. */
  what: string;
}

// A module tool that never yields holds the thread the scope's own timer needs: the watchdog
// stops it at that deadline too, rather than only past the tool's timeout (60 s by default).
const deadlines = new WeakMap<object, RunCodeDeadline>();

// Keeps what runs now, by its description, until the returned function is called.
function named(description: string): () => void {
  const id = watches++;
  running.set(id, { description, scope: scopes.getStore() });
  return () => {
    running.delete(id);
  };
}

/**
 * Runs `work` in `scope`: what its runs call is told apart from other runs of the process in
 * {@link runCodeInFlight}, so one test out of time names what it waited on, not another test's calls.
 * With `deadline`, a module tool of the scope that holds the thread past it is stopped then, as one
 * past its own timeout is.
 *
 * @example
 * await inRunCodeScope(test, () => runner.run({ input }));
 * runCodeInFlight(test); // [ 'middleware `stuck` during model_call' ]
 */
export function inRunCodeScope<T>(scope: object, work: () => T, deadline?: RunCodeDeadline): T {
  if (deadline) deadlines.set(scope, deadline);
  return scopes.run(scope, work);
}

// Watches work on the main thread, and keeps its description while it runs.
function watch(work: WatchedWork, description: string): () => void {
  const unname = named(description);
  const end = watchMainThread(work);
  return () => {
    unname();
    end();
  };
}

/**
 * What the runs {@link watchRunCode} watches are running at this moment (``middleware `x` during
 * model_call``, ``tool `y` ``), oldest first: what a run that can never finish waits on. With
 * `scope`, only what runs in that {@link inRunCodeScope}.
 */
export function runCodeInFlight(scope?: unknown): string[] {
  return [...running.values()].flatMap((r) =>
    scope === undefined || r.scope === scope ? [r.description] : [],
  );
}

/**
 * Watches the project's code every run of the process calls until the returned function is called:
 * a call of a module tool ({@link markProjectCode}) that holds the main thread past its timeout
 * without yielding (an endless loop, which no timer can interrupt), and a module middleware ({@link watchedMiddleware}) that holds it
 * for the module load limit (`AGENTCTL_MODULE_LOAD_LIMIT_MS`, 30 s), are named on stderr; with
 * `fatal` the process ends there rather than hang. Model calls are only named, for
 * {@link runCodeInFlight}.
 */
export function watchRunCode(options: { fatal: boolean }): () => void {
  const previous = watching;
  watching = options;
  process.on('exit', exitedMidRun);
  const stop = observeRuns({
    toolCall(call) {
      // agentctl's own tools wait on files, processes and the network; watching them would start
      // the watchdog's thread in every run that calls a tool.
      if (!runsProjectCode(call.tool)) return { end: named(`tool \`${call.name}\``) };
      const scope = scopes.getStore();
      const deadline = typeof scope === 'object' && scope !== null ? deadlines.get(scope) : undefined;
      const end = watch(
        {
          kind: 'tool',
          name: call.name,
          limitMs: call.timeoutMs,
          startedAt: Date.now() - (performance.now() - call.started),
          fatal: options.fatal,
          ...(deadline && { deadline }),
        },
        `tool \`${call.name}\``,
      );
      return { end };
    },
    // Named, not watched: the providers a project can name are agentctl's own, and a module
    // middleware around the call is watched by watchedMiddleware. Watching every model call would
    // start the watchdog's thread in every run (a fifth of a `run hello`'s instructions).
    modelCall(call) {
      const end = named(`model \`${call.request.model}\` (provider \`${call.provider}\`)`);
      return { end, fail: end };
    },
  });
  return () => {
    stop();
    process.off('exit', exitedMidRun);
    if (watching === options) watching = previous;
  };
}

// Nothing of agentctl's ends a watched process with exit code 0: a module tool or middleware that
// called `process.exit()` did, and a run (a test, a server) left unfinished must not read as a
// success to a script or CI. 'exit' handlers may only write synchronously.
function exitedMidRun(code: number): void {
  if (code !== 0) return;
  const what = runCodeInFlight();
  writeSync(
    2,
    `agentctl: the process was ended (process.exit) while ${what.length > 0 ? what.join(', ') : 'a run'} ran, before the run finished; exit code 1\n`,
  );
  process.exitCode = 1;
}

/**
 * A module middleware that, while {@link watchRunCode} watches, is watched on every action it
 * handles: one that never yields (an endless loop) holds the thread every timer and Ctrl-C's
 * handler need, and is named as ``middleware `name` `` rather than left to hang the process. Only
 * its own code is watched, not the time it waits in `next()` (the model, a tool, inner middleware).
 */
export function watchedMiddleware(name: string, middleware: Middleware): Middleware {
  const watched: Middleware = (action, next) => {
    const options = watching;
    if (!options) return middleware(action, next);
    const open = () =>
      watch(
        {
          kind: 'code',
          name: `middleware \`${name}\``,
          during: action.type,
          limitMs: moduleLoadLimitMs(),
          fatal: options.fatal,
        },
        `middleware \`${name}\` during ${action.type}`,
      );
    let end = open();
    let settled = false;
    const inner: typeof next = (replacement) => {
      end();
      return next(replacement).finally(() => {
        if (!settled) end = open();
      });
    };
    let out: Promise<typeof action>;
    try {
      out = middleware(action, inner);
    } catch (error) {
      end();
      throw error;
    }
    return Promise.resolve(out).finally(() => {
      settled = true;
      end();
    });
  };
  return sameMiddleware(watched, middleware);
}
