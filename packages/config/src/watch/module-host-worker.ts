/**
 * The JavaScript a module host's worker runs. It is source text (run with `eval: true`) rather than
 * a file so the same code starts from the TypeScript sources under vitest and from dist, with no
 * loader in the worker; tsx is imported by the absolute URL the host passes in `workerData`.
 *
 * Protocol (worker side): `load` imports a module and describes its exports; `call` runs a tool's
 * `execute`; `factory` calls a middleware factory and keeps what it made under a handle; `wrap`
 * runs a middleware, asking the host for each `next()`; `abort` aborts a call's signal; `redact`
 * applies a middleware's `redactsCalls` to a text and answers in shared memory (the host waits on it);
 * `stateUpdated` answers a tool's `stateUpdate` (a compare-and-set of one key, see updateState).
 * Code that fails where nothing awaits it (a timer's throw, a promise left unhandled) fails the
 * request whose code it is, its error marked `stray`; once that request is answered, it is a `late`
 * message. Only a failure outside any request's code ends the worker, as it would without this.
 */
export const MODULE_HOST_WORKER = String.raw`
const { parentPort, workerData, MessageChannel, receiveMessageOnPort } = require('node:worker_threads');
const { pathToFileURL, fileURLToPath } = require('node:url');
const Module = require('node:module');
const { isAbsolute } = require('node:path');
const { AsyncLocalStorage } = require('node:async_hooks');
const STATE_BYTES = 1 << 20;
const modules = new Map();
const handles = new Map();
const names = new Map();
const calls = new Map();
const nexts = new Map();
let seq = 0;
// The host reads this beat to tell a worker held by code that never yields from one that waits.
const beat = new Int32Array(workerData.beat);
setInterval(() => Atomics.add(beat, 0, 1), 50).unref();
// Every file a module imports, so that a save of a helper it imports (from any folder) reloads it:
// ES imports are seen by a resolve hook (on the loader's own thread, so it posts them here, read
// back synchronously), require() calls (a .ts compiled to CommonJS) by the resolver they all use.
const resolved = new MessageChannel();
Module.register(
  'data:text/javascript,' + encodeURIComponent(
    'let port; export function initialize(data) { port = data.port; }' +
    'export async function resolve(specifier, context, next) { const r = await next(specifier, context);' +
    " if (r.url.startsWith('file:')) port.postMessage(r.url); return r; }"),
  { data: { port: resolved.port2 }, transferList: [resolved.port2] },
);
const imported = new Set();
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  if (typeof file === 'string' && isAbsolute(file)) imported.add(file);
  return file;
};
const warmFiles = new Set(workerData.warm);
const reported = new Set();
// The files resolved since the last call, as paths (a query such as tsx's ?namespace= removed).
function drain() {
  for (let m = receiveMessageOnPort(resolved.port1); m; m = receiveMessageOnPort(resolved.port1)) {
    try { imported.add(fileURLToPath(m.message)); } catch {}
  }
  const out = new Set([...imported].map((file) => file.replace(/[?#].*$/, '')));
  imported.clear();
  return [...out];
}
// Of those, the ones a save should reload for the first time: packages (node_modules, never
// watched) and agentctl's own warm-up files left out.
function toWatch(files) {
  return files.filter((file) => {
    if (reported.has(file) || warmFiles.has(file) || /[\\/]node_modules[\\/]/.test(file)) return false;
    reported.add(file);
    return true;
  });
}
// The request whose code runs, through its timers and promises: Node runs these handlers in the
// async context of the code that failed.
const requests = new AsyncLocalStorage();
function strayed(error) {
  const request = requests.getStore();
  if (request) return request.fail(error);
  // No request's: the worker ends as it would have (the host fails what waits on it).
  process.off('uncaughtException', strayed);
  process.off('unhandledRejection', strayed);
  process.nextTick(() => { throw error; });
}
process.on('uncaughtException', strayed);
process.on('unhandledRejection', strayed);
// Runs a request's work (owner: whose code it runs, for a late failure; module: the path of a
// module whose import it is): a stray failure before it is answered fails it, marked; after, it is
// told to the host as a warning.
function guarded(owner, work, module) {
  let answered = false;
  let reject;
  const failed = new Promise((_, rejectWith) => { reject = rejectWith; });
  const request = {
    fail(error) {
      if (answered) {
        parentPort.postMessage({ type: 'late', owner, module, text: errorOf(error).message });
        return;
      }
      answered = true;
      const marked = new Error(errorOf(error).message);
      if (error instanceof Error && error.stack) marked.stack = error.stack;
      reject(Object.assign(marked, { stray: true }));
    },
  };
  return Promise.race([requests.run(request, work), failed]).finally(() => { answered = true; });
}
const isTool = (v) => v !== null && typeof v === 'object' && typeof v.name === 'string' && typeof v.execute === 'function';
const errorOf = (e) => ({ name: e && e.name, message: e instanceof Error ? e.message : String(e), code: e && e.code });
// Loading tsx and its first transform cost ~300 ms: a worker does it as it starts, while idle.
const tsx = (async () => {
  const api = await import(workerData.tsx);
  for (const file of workerData.warm) await api.tsImport(pathToFileURL(file).href, workerData.parent).catch(() => {});
  return api;
})();
tsx.catch(() => {});
async function load(path) {
  let mod = modules.get(path);
  if (!mod) {
    const url = pathToFileURL(path).href;
    if (/\.(m|c)?ts$/.test(path)) {
      const { tsImport } = await tsx;
      mod = await tsImport(url, workerData.parent);
      // A .ts file outside a "type": "module" package is compiled to CommonJS: use its exports.
      if (mod.default && mod.default.__esModule) mod = mod.default;
    } else mod = await import(url);
    modules.set(path, mod);
  }
  return mod;
}
// What of a middleware the host mirrors: it holds answers, it redacts calls (and with what).
function flagsOf(fn) {
  return { holdsAnswers: fn.holdsAnswers === true, redactsCalls: typeof fn.redactsCalls === 'function',
    redactionMarker: typeof fn.redactionMarker === 'string' ? fn.redactionMarker : undefined };
}
// Answered at once, in shared memory: the host is blocked until it is (a call is being recorded).
function answerRedact(msg) {
  const flag = new Int32Array(msg.shared, 0, 3);
  let text;
  try {
    const fn = msg.handle !== undefined ? handles.get(msg.handle) : modules.get(msg.path)?.[msg.exportName];
    text = String(fn.redactsCalls(msg.text));
  } catch (e) {
    // Said back as the error it is: the host fails the run naming the middleware, as outside dev.
    flag[2] = 1;
    text = errorOf(e).message;
  }
  const bytes = new TextEncoder().encode(text);
  const room = new Uint8Array(msg.shared, 12);
  if (bytes.length > room.length) flag[1] = -1;
  else { room.set(bytes); flag[1] = bytes.length; }
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
function describe(mod) {
  const out = {};
  for (const [key, value] of Object.entries(mod)) {
    if (isTool(value)) {
      out[key] = { kind: 'tool', name: value.name, description: value.description, parameters: value.parameters,
        timeout: value.timeout, needsApproval: typeof value.needsApproval === 'function' ? 'function' : value.needsApproval };
    } else if (typeof value === 'function') out[key] = { kind: 'function', length: value.length, ...flagsOf(value) };
    else {
      try { out[key] = { kind: 'value', value: structuredClone(value) }; } catch { /* not cloneable: not offered */ }
    }
  }
  return out;
}
async function runTool(msg) {
  const mod = await load(msg.path);
  const tool = mod[msg.exportName];
  const controller = new AbortController();
  calls.set(msg.id, controller);
  const sets = {};
  // Session state lives in the host thread: a read blocks this worker until the host answers.
  const readState = (key) => {
    const shared = new SharedArrayBuffer(8 + STATE_BYTES);
    const flag = new Int32Array(shared, 0, 2);
    parentPort.postMessage({ type: 'stateGet', id: msg.id, key, shared });
    if (Atomics.wait(flag, 0, 0, 10000) === 'timed-out') throw new Error('reading session state timed out');
    if (flag[1] < 0) throw new Error('the session state value of ' + key + ' is too large to read from a module tool in dev');
    const text = new TextDecoder().decode(new Uint8Array(shared, 8, flag[1]).slice());
    return text === '' ? undefined : JSON.parse(text);
  };
  let ended = false;
  const ctx = {
    callId: msg.callId, signal: controller.signal, messages: msg.messages,
    endInvocation: () => { ended = true; },
    state: {
      get: (k) => (k in sets ? sets[k] : readState(k)),
      set: (k, v) => { sets[k] = v; },
      update: (k, fn) => updateState(msg.id, sets, readState, k, fn),
    },
    requestInput: (question) => { const e = new Error(question); e.__requestInput = question; throw e; },
  };
  try {
    const value = await tool.execute(msg.args, ctx);
    return { value, sets, ended };
  } catch (e) {
    if (e && e.__requestInput !== undefined) return { requestInput: e.__requestInput, sets, ended };
    throw e;
  } finally {
    calls.delete(msg.id);
  }
}
// state.update: the store's lock is held on the host's thread, which cannot wait for this one, so
// the update is a compare-and-set there: fn's result is stored only if the value is still the one
// fn was given, else fn runs again on the value the store holds (sent back), until one lands. The
// call's pending sets go first, so the host sees the state the call saw.
const STATE_UPDATE_TRIES = 100;
const updates = new Map();
async function updateState(id, sets, readState, key, fn) {
  let current = key in sets ? sets[key] : readState(key);
  for (let tries = 0; tries < STATE_UPDATE_TRIES; tries++) {
    const next = fn(current);
    if (next !== null && (typeof next === 'object' || typeof next === 'function') && typeof next.then === 'function')
      throw new TypeError('state.update needs a synchronous function: this one returned a promise');
    const pending = { ...sets };
    const reply = await new Promise((resolve) => {
      const uid = ++seq;
      // Sent first: a value that cannot cross threads throws here, leaving the sets and no waiter.
      parentPort.postMessage({ type: 'stateUpdate', id, uid, key, expected: current, next: next ?? null, sets: pending });
      for (const k of Object.keys(pending)) delete sets[k];
      updates.set(uid, resolve);
    });
    if (reply.error) throw Object.assign(new Error(reply.error.message), { name: reply.error.name || 'Error' });
    if (!reply.stale) return reply.value === null ? undefined : reply.value;
    current = reply.latest;
  }
  throw new Error('state.update of ' + key + ' kept meeting other writes of it (' + STATE_UPDATE_TRIES + ' tries)');
}
async function wrap(msg) {
  const fn = msg.handle !== undefined ? handles.get(msg.handle) : (await load(msg.path))[msg.exportName];
  const next = (replacement) => new Promise((resolve, reject) => {
    const nid = ++seq;
    nexts.set(nid, { resolve, reject });
    parentPort.postMessage({ type: 'next', id: msg.id, nid, action: replacement });
  });
  return { action: await fn(msg.action, next) };
}
async function handle(msg) {
  switch (msg.type) {
    case 'load': {
      try {
        // Node tells of a promise the module's top-level code left rejected only once the turn of
        // the event loop that evaluated it ends: the import waits for that, so it fails the import.
        const loaded = async () => { const mod = await load(msg.path); await new Promise((r) => setImmediate(r)); return mod; };
        const exports = describe(await guarded('the module ' + msg.path, loaded, msg.path));
        return { exports, files: toWatch(drain()) };
      } catch (e) {
        // A module that failed still names what it imported: a fix to a broken helper must reload.
        // Where it failed is worked out by the host, from the stack and every file the import reached.
        const files = drain();
        throw Object.assign(e instanceof Error ? e : new Error(String(e)), { reached: files, files: toWatch(files) });
      }
    }
    case 'call': {
      const name = (await load(msg.path))[msg.exportName]?.name;
      return guarded('tool \u0060' + name + '\u0060', () => runTool(msg));
    }
    case 'factory': {
      const mod = await load(msg.path);
      const made = await guarded('the middleware factory \u0060' + msg.exportName + '\u0060', () => mod[msg.exportName](msg.options));
      if (typeof made !== 'function') throw new Error('the factory did not return a middleware function');
      const h = ++seq;
      handles.set(h, made);
      names.set(h, msg.exportName);
      return { handle: h, ...flagsOf(made) };
    }
    case 'settle': {
      // Timers set before this request with no longer a delay have run, and what they failed has
      // been told (messages keep their order): a check that ends now has heard of them.
      await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => setImmediate(r));
      return {};
    }
    case 'wrap': {
      const name = msg.handle !== undefined ? names.get(msg.handle) : msg.exportName;
      return guarded(msg.owner || 'middleware \u0060' + name + '\u0060', () => wrap(msg));
    }
  }
}
parentPort.on('message', (msg) => {
  if (msg.type === 'abort') { calls.get(msg.id)?.abort(new Error('aborted')); return; }
  if (msg.type === 'redact') {
    const name = msg.handle !== undefined ? names.get(msg.handle) : msg.exportName;
    guarded('middleware \u0060' + name + '\u0060', () => answerRedact(msg)).catch(() => {});
    return;
  }
  if (msg.type === 'stateUpdated') {
    const waiter = updates.get(msg.uid);
    updates.delete(msg.uid);
    waiter?.(msg);
    return;
  }
  if (msg.type === 'nextResult') {
    const waiter = nexts.get(msg.nid);
    nexts.delete(msg.nid);
    if (msg.error) waiter?.reject(Object.assign(new Error(msg.error.message), msg.error));
    else waiter?.resolve(msg.action);
    return;
  }
  handle(msg).then(
    (result) => {
      try { parentPort.postMessage({ type: 'result', id: msg.id, ...result }); }
      catch (e) { parentPort.postMessage({ type: 'result', id: msg.id, error: { message: 'the result cannot be sent between threads: ' + errorOf(e).message } }); }
    },
    (e) => parentPort.postMessage({ type: 'result', id: msg.id, error: { ...errorOf(e), stray: e && e.stray === true }, files: e && e.files,
      failure: e && e.reached ? { stack: String(e.stack), reached: e.reached } : undefined }),
  );
});
`;
