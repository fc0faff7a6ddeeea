import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  type AgentAction,
  AgentError,
  type AnyTool,
  deadline,
  type Middleware,
  sameJson,
  type ToolContext,
} from '@agentctl/core';
import { configAssets } from '../assets.js';
import { moduleLoadMessage } from '../compile/module-load-error.js';
import { strayedElsewhere } from '../compile/stray-failures.js';
import { displayPath } from '../paths.js';
import { MODULE_HOST_WORKER } from './module-host-worker.js';
import { ModuleLoadTimeout, moduleLoadLimitMs } from './module-load-limit.js';

interface Reply {
  type: 'result';
  id: number;
  /** `stray`: code failing where nothing awaited it (a timer's throw, an unhandled rejection). */
  error?: { name?: string; message: string; code?: string; stray?: boolean };
  /** A failed load: the error's stack and every file the import reached. */
  failure?: { stack: string; reached: string[] };
  [key: string]: unknown;
}

type ExportDescription =
  | {
      kind: 'tool';
      name: string;
      description: string;
      parameters: AnyTool['parameters'];
      timeout?: number;
      needsApproval?: boolean | 'function';
    }
  | ({ kind: 'function'; length: number } & MiddlewareFlags)
  | { kind: 'value'; value: unknown };

// What of a middleware crosses over from the worker: the flags that change how an agent records.
interface MiddlewareFlags {
  holdsAnswers?: boolean;
  /** It has a `redactsCalls`, run in the worker as each call is recorded. */
  redactsCalls?: boolean;
  redactionMarker?: string;
}

// How long recording a call waits for the worker to redact one text before hiding it whole.
const REDACT_WAIT_MS = 5_000;

// How often a running call's worker is checked for a heartbeat.
const CHECK_MS = 250;

// A module's path as a person reads it: relative to the current folder when inside it.
function shown(path: string): string {
  return displayPath(process.cwd(), path);
}

/**
 * Runs module tools and module middleware in a worker thread, so that terminating the worker frees
 * every module it imported: V8 never unloads an ES module, and `import('x?v=N')` would keep each
 * edited version alive for the life of the process. One host serves one generation of a project.
 */
export class ModuleHost {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  readonly #nexts = new Map<number, (action: unknown) => Promise<unknown>>();
  /** Tool calls running in the worker, for their reads of session state. */
  readonly #calls = new Map<number, ToolContext>();
  /** What each pending call, middleware or factory request runs, for a worker found stuck in it. */
  readonly #running = new Map<number, string>();
  /** The worker's heartbeat, moved by its event loop: still, the worker is held by code that never yields. */
  readonly #beat = new Int32Array(new SharedArrayBuffer(4));
  #lastBeat = 0;
  #beatSeen = 0;
  #checking: NodeJS.Timeout | undefined;
  /** Why the worker was stopped when code held it; every later request fails with it. */
  #stuck: string | undefined;
  #seq = 0;
  #closed = false;
  /** Why the worker is gone (it exited or failed): every later request fails with it rather than wait. */
  #gone: Error | undefined;
  /** Late failures held until {@link scrubLateFailures} says how to hide secrets in them, or {@link lateFailures} takes them. */
  #late: LateFailure[] = [];
  #scrub: ((text: string) => string) | undefined;
  readonly #imports = new Map<string, Set<string>>();

  constructor() {
    const assets = configAssets();
    this.#worker = new Worker(MODULE_HOST_WORKER, {
      eval: true,
      workerData: {
        tsx: assets.tsxApiUrl(),
        parent: pathToFileURL(`${assets.root}/package.json`).href,
        warm: assets.warmUpFiles,
        beat: this.#beat.buffer,
      },
    });
    // The worker must not keep a CLI alive; runs in flight hold their own promises.
    this.#worker.unref();
    this.#worker.on('message', (message: Reply | NextRequest | StateRequest | StateUpdate | LateFailure) =>
      this.#onMessage(message),
    );
    this.#worker.on('error', (error) => {
      this.#gone ??= error;
      this.#failAll(error);
    });
    this.#worker.on('exit', (code) => {
      const error = new Error(
        `the module worker stopped (exit code ${code}; does the module call process.exit?)`,
      );
      this.#gone ??= error;
      this.#failAll(error);
    });
  }

  /**
   * How to hide the project's secrets in the warnings this host writes on stderr (module code that
   * failed after its call was answered); they wait for it, as the compilation knows the secrets.
   */
  scrubLateFailures(scrub: (text: string) => string): void {
    this.#scrub = scrub;
    for (const late of this.#late.splice(0))
      process.stderr.write(scrub(`agentctl: warning: ${lateText(late)}\n`));
  }

  /**
   * The late failures held so far (as `validate` reports them, instead of a run's warnings), once
   * the worker has run the timers set before this call with no longer a delay; none are held after.
   */
  async lateFailures(): Promise<Array<{ module?: string; text: string }>> {
    await this.#request({ type: 'settle' });
    return this.#late.splice(0).map((late) => ({ module: late.module, text: lateText(late) }));
  }

  #lateFailure(message: LateFailure): void {
    if (this.#scrub) process.stderr.write(this.#scrub(`agentctl: warning: ${lateText(message)}\n`));
    else if (this.#late.length < 100) this.#late.push(message);
  }

  /** Imports a module in the worker and returns stand-ins for its tools, functions and values. */
  async importModule(absolutePath: string): Promise<Record<string, unknown>> {
    const reply = await this.#request({ type: 'load', path: absolutePath }).catch((error: Error) => {
      this.#imported(absolutePath, (error as { files?: string[] }).files);
      throw error;
    });
    this.#imported(absolutePath, reply.files as string[] | undefined);
    const exports = reply.exports as Record<string, ExportDescription>;
    const out: Record<string, unknown> = {};
    for (const [key, described] of Object.entries(exports)) {
      if (described.kind === 'tool') out[key] = this.#tool(absolutePath, key, described);
      else if (described.kind === 'function')
        out[key] = this.#function(absolutePath, key, described.length, described);
      else out[key] = described.value;
    }
    return out;
  }

  /**
   * {@link importModule} within `limitMs`: past it, fails with {@link ModuleLoadTimeout} naming
   * `what`, and the host is disposed, as its worker may be stuck in the module's code for good.
   */
  async importModuleWithin(
    absolutePath: string,
    limitMs = moduleLoadLimitMs(),
    what?: string,
  ): Promise<Record<string, unknown>> {
    const limit = deadline(undefined, limitMs, () => new ModuleLoadTimeout(limitMs, what));
    try {
      return await limit.race(this.importModule(absolutePath));
    } catch (error) {
      if (error instanceof ModuleLoadTimeout) await this.dispose();
      throw error;
    } finally {
      limit.dispose();
    }
  }

  /**
   * For each module imported so far (by absolute path), the files it was read from: itself and every
   * file it imports, in any folder, packages under node_modules left out; a file two modules import
   * is listed under the first. A save of any of them changes the module. A module that failed to
   * load lists the files it reached.
   */
  get imports(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.#imports;
  }

  /** Stops the worker, which releases every module it loaded. Calls still running fail. */
  async dispose(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#worker.terminate();
  }

  #imported(module: string, files: readonly string[] | undefined): void {
    const known = this.#imports.get(module) ?? new Set([module]);
    for (const file of files ?? []) known.add(file);
    this.#imports.set(module, known);
  }

  #tool(path: string, exportName: string, d: ExportDescription & { kind: 'tool' }): AnyTool {
    return {
      name: d.name,
      description: d.description,
      parameters: d.parameters,
      timeout: d.timeout,
      // A function cannot be asked synchronously across threads: ask for approval to be safe.
      needsApproval: d.needsApproval === 'function' ? true : d.needsApproval,
      execute: async (args: unknown, ctx: ToolContext) => {
        const id = ++this.#seq;
        const onAbort = () => this.#worker.postMessage({ type: 'abort', id });
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        this.#calls.set(id, ctx);
        try {
          const reply = await this.#request(
            { type: 'call', path, exportName, args, callId: ctx.callId, messages: ctx.messages },
            id,
            `tool \`${d.name}\` of ${shown(path)}`,
          );
          for (const [key, value] of Object.entries((reply.sets ?? {}) as Record<string, unknown>))
            ctx.state.set(key, value);
          if (reply.ended) ctx.endInvocation();
          if (typeof reply.requestInput === 'string') ctx.requestInput(reply.requestInput);
          return reply.value;
        } finally {
          this.#calls.delete(id);
          ctx.signal.removeEventListener('abort', onAbort);
        }
      },
    };
  }

  // A function export is a middleware `(action, next)` or a factory of one `(options)`.
  // Its flags cross over as what they are: `holdsAnswers` as the flag, `redactsCalls` as a function
  // that asks the worker synchronously (a call is recorded the moment the model makes it).
  #function(
    path: string,
    exportName: string,
    length: number,
    flags: MiddlewareFlags,
  ): (...args: unknown[]) => unknown {
    if (length >= 2) {
      const middleware = this.#middleware({ path, exportName });
      // Keeps the arity the compiler reads to tell a middleware from a factory.
      const standIn = (action: unknown, next: unknown) => middleware(action as AgentAction, next as never);
      return this.#flagged(standIn, flags, { path, exportName });
    }
    return async (options: unknown) => {
      const what = `the middleware factory \`${exportName}\` of ${shown(path)}`;
      const reply = await this.#request({ type: 'factory', path, exportName, options }, undefined, what);
      const handle = reply.handle as number;
      const made = this.#middleware({ handle }, `\`${exportName}\` of ${shown(path)}`);
      return this.#flagged(made, reply as MiddlewareFlags, { handle });
    };
  }

  #flagged<T extends object>(
    fn: T,
    flags: MiddlewareFlags,
    target: { path: string; exportName: string } | { handle: number },
  ): T {
    const marker = typeof flags.redactionMarker === 'string' ? flags.redactionMarker : undefined;
    return Object.assign(
      fn,
      flags.holdsAnswers === true ? { holdsAnswers: true } : {},
      flags.redactsCalls === true ? { redactsCalls: this.#redactsCalls(target, marker ?? '[REDACTED]') } : {},
      marker !== undefined ? { redactionMarker: marker } : {},
    );
  }

  // The middleware's `redactsCalls`, run in the worker while this thread waits (Node lets the main
  // thread wait). A worker that cannot answer (gone, stuck, busy past the wait) gets the text hidden
  // whole: a recorded call shows less, never what the middleware would hide. What the function
  // threw is thrown here, as it would be outside dev.
  #redactsCalls(
    target: { path: string; exportName: string } | { handle: number },
    marker: string,
  ): (text: string) => string {
    return (text) => {
      if (this.#stuck || this.#closed) return marker;
      // Int32 flag (1 when answered), Int32 length (-1: too large), Int32 1 when it threw, then UTF-8.
      const shared = new SharedArrayBuffer(12 + 3 * text.length + 4096);
      const flag = new Int32Array(shared, 0, 3);
      this.#worker.postMessage({ type: 'redact', ...target, text, shared });
      if (Atomics.wait(flag, 0, 0, REDACT_WAIT_MS) === 'timed-out' || flag[1] < 0) return marker;
      const out = new TextDecoder().decode(new Uint8Array(shared, 12, flag[1]).slice());
      if (flag[2] === 1) throw new Error(out);
      return out;
    };
  }

  #middleware(
    target: { path: string; exportName: string } | { handle: number },
    name = 'path' in target ? `\`${target.exportName}\` of ${shown(target.path)}` : 'a middleware',
  ): Middleware {
    return async (action, next) => {
      const id = ++this.#seq;
      const { sendable, restore } = splitAction(action);
      this.#nexts.set(id, async (replacement) => {
        const result = await next(replacement === undefined ? undefined : restore(replacement));
        return splitAction(result).sendable;
      });
      try {
        const reply = await this.#request(
          { type: 'wrap', ...target, action: sendable, owner: `middleware ${name}` },
          id,
          `middleware ${name} during ${action.type}`,
        );
        return restore(reply.action);
      } finally {
        this.#nexts.delete(id);
      }
    };
  }

  #request(message: Record<string, unknown>, id = ++this.#seq, what?: string): Promise<Reply> {
    if (this.#stuck) return Promise.reject(new AgentError(this.#stuck, 'TIMEOUT'));
    if (this.#closed) return Promise.reject(new Error('this generation was disposed'));
    if (this.#gone) return Promise.reject(this.#gone);
    return new Promise<Reply>((resolve, reject) => {
      // Waited on, the worker keeps the process alive: unref'd, a worker that exits or hangs while
      // importing a module would let the process end with exit code 0 and nothing printed.
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      if (what !== undefined) this.#watch(id, what);
      this.#worker.postMessage({ ...message, id });
    }).then((reply) => {
      if (reply.error) {
        const { name, message, code } = reply.error;
        const text = reply.failure
          ? moduleLoadMessage({ name, message, stack: reply.failure.stack }, reply.failure.reached)
          : message;
        const error = Object.assign(new Error(text), { code, files: reply.files });
        throw reply.error.stray === true ? strayedElsewhere(error) : error;
      }
      return reply;
    });
  }

  #onMessage(message: Reply | NextRequest | StateRequest | StateUpdate | LateFailure): void {
    if (message.type === 'late') {
      this.#lateFailure(message);
      return;
    }
    if (message.type === 'stateGet') {
      answerState(this.#calls.get(message.id), message);
      return;
    }
    if (message.type === 'stateUpdate') {
      void updateState(this.#calls.get(message.id), message).then((answer) =>
        this.#worker.postMessage({ type: 'stateUpdated', uid: message.uid, ...answer }),
      );
      return;
    }
    if (message.type === 'next') {
      const next = this.#nexts.get(message.id);
      const send = (body: Record<string, unknown>) =>
        this.#worker.postMessage({ type: 'nextResult', nid: message.nid, ...body });
      if (!next) {
        send({ error: { message: 'next() called after the middleware returned' } });
        return;
      }
      next(message.action).then(
        (action) => send({ action }),
        (error: Error) => send({ error: { message: error.message, name: error.name } }),
      );
      return;
    }
    const waiter = this.#pending.get(message.id);
    this.#pending.delete(message.id);
    this.#unwatch(message.id);
    if (this.#pending.size === 0) this.#worker.unref();
    waiter?.resolve(message);
  }

  #failAll(error: Error): void {
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
    this.#running.clear();
    clearInterval(this.#checking);
    this.#checking = undefined;
    this.#worker.unref();
  }

  // Module code runs in the worker, so it cannot hold the main thread; but code that never yields
  // (an endless loop) holds the worker for good, and every later call of this generation's modules
  // would wait behind it (a middleware, which has no timeout, for ever). Calls are watched while
  // they run: a worker whose heartbeat stood still for the module load limit is stopped, naming
  // what it ran, and this generation's later calls fail at once with that; a save reloads.
  #watch(id: number, what: string): void {
    this.#running.set(id, what);
    if (this.#checking) return;
    this.#lastBeat = Atomics.load(this.#beat, 0);
    this.#beatSeen = performance.now();
    this.#checking = setInterval(() => this.#check(), CHECK_MS).unref();
  }

  #unwatch(id: number): void {
    if (!this.#running.delete(id) || this.#running.size > 0) return;
    clearInterval(this.#checking);
    this.#checking = undefined;
  }

  #check(): void {
    const beat = Atomics.load(this.#beat, 0);
    const now = performance.now();
    if (beat !== this.#lastBeat) {
      this.#lastBeat = beat;
      this.#beatSeen = now;
      return;
    }
    const limitMs = moduleLoadLimitMs();
    if (now - this.#beatSeen < limitMs) return;
    const what = [...this.#running.values()].join(', ');
    this.#stuck = `${what} held its module worker ${Math.round(limitMs / 100) / 10} s without yielding (an endless loop, or long synchronous work?); the worker was stopped, and this version's modules are unavailable until a save reloads them`;
    this.#failAll(new AgentError(this.#stuck, 'TIMEOUT'));
    void this.dispose();
  }
}

interface StateRequest {
  type: 'stateGet';
  id: number;
  key: string;
  /** Int32 flag (set to 1 when answered), Int32 length (-1: too large), then the JSON bytes. */
  shared: SharedArrayBuffer;
}

// Writes the value into the shared buffer and wakes the worker blocked on it.
function answerState(ctx: ToolContext | undefined, request: StateRequest): void {
  const flag = new Int32Array(request.shared, 0, 2);
  const value = ctx?.state.get(request.key);
  const bytes = new TextEncoder().encode(value === undefined ? '' : JSON.stringify(value));
  const room = new Uint8Array(request.shared, 8);
  if (bytes.length > room.length) flag[1] = -1;
  else {
    room.set(bytes);
    flag[1] = bytes.length;
  }
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

interface StateUpdate {
  type: 'stateUpdate';
  id: number;
  uid: number;
  key: string;
  /** The value the tool's function was given (as the worker reads state: through JSON). */
  expected: unknown;
  /** What the function made of it. */
  next: unknown;
  /** The call's `state.set`s made before the update, applied first. */
  sets: Record<string, unknown>;
}

// The worker's `state.update` as a compare-and-set under the store's lock (through the call's own
// `state.update`, so the store, the lease and the run's view do what they do outside dev). A value
// changed since the worker read it is refused by throwing inside the update, so nothing is stored;
// known by the closure, not the error's class, which a store may wrap.
async function updateState(
  ctx: ToolContext | undefined,
  request: StateUpdate,
): Promise<
  { value: unknown } | { stale: true; latest: unknown } | { error: { name: string; message: string } }
> {
  if (!ctx) return { error: { name: 'Error', message: 'state.update was called after its tool call ended' } };
  let stale: { latest: unknown } | undefined;
  try {
    for (const [key, value] of Object.entries(request.sets)) ctx.state.set(key, value);
    const value = await ctx.state.update(request.key, (current) => {
      const seen = asJson(current);
      if (sameJson(seen, request.expected)) return request.next;
      stale = { latest: seen };
      throw new Error(`${request.key} changed since it was read`);
    });
    return { value: asJson(value) ?? null };
  } catch (error) {
    if (stale) return { stale: true, latest: stale.latest };
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { error: { name, message } };
  }
}

// A state value as the worker reads it (see answerState): through JSON.
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

// Module code that failed where nothing awaited it, after the request that ran it was answered.
interface LateFailure {
  type: 'late';
  owner: string;
  /** The module whose import ran the code, when it was its top-level code. */
  module?: string;
  text: string;
}

// Worded as a run in this process words it (see the compiler's module import).
function lateText(late: LateFailure): string {
  return late.module !== undefined
    ? `code of the module ${shown(late.module)} failed after it was imported (ignored): ${late.text}`
    : `code of ${late.owner} failed after its call had ended (ignored): ${late.text}`;
}

interface NextRequest {
  type: 'next';
  id: number;
  nid: number;
  action?: unknown;
}

/**
 * An action without what cannot cross threads (the tool call's AbortSignal, the error's class),
 * and a way to put those back on what comes back.
 */
function splitAction(action: AgentAction): {
  sendable: unknown;
  restore(back: unknown): AgentAction;
} {
  const payload = action.payload as unknown as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  const plain: Record<string, unknown> = { ...payload };
  if ('signal' in plain) {
    kept.signal = plain.signal;
    delete plain.signal;
  }
  if (plain.error instanceof Error) {
    kept.error = plain.error;
    const e = plain.error as Error & { code?: string };
    plain.error = { name: e.name, message: e.message, code: e.code };
  }
  return {
    sendable: { ...action, payload: plain },
    restore(back) {
      const b = back as AgentAction;
      return { ...b, payload: { ...(b.payload as object), ...kept } } as AgentAction;
    },
  };
}
