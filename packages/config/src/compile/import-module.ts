import { AsyncLocalStorage } from 'node:async_hooks';
import { pathToFileURL } from 'node:url';
import { configAssets } from '../assets.js';
import { displayPath } from '../paths.js';
import { watchImport } from './load-watchdog.js';
import { moduleLoadMessage } from './module-load-error.js';

/** Imports a module by absolute path; what {@link withModuleLoader} can replace. */
export type ModuleLoader = (absolutePath: string) => Promise<Record<string, unknown>>;

const scope = new AsyncLocalStorage<ModuleLoader>();

/**
 * Runs `fn` (a compilation) with module tools and middleware imported by `loader` instead of in
 * this process. Reload uses it to load each generation's modules in a worker it can terminate.
 */
export function withModuleLoader<T>(loader: ModuleLoader, fn: () => Promise<T>): Promise<T> {
  return scope.run(loader, fn);
}

/**
 * Runs `fn` outside any {@link withModuleLoader} scope: a worker or port made inside one keeps the
 * scope's loader (and through it a whole compilation) reachable for as long as it lives.
 */
export function withoutModuleLoader<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** Imports a .ts (through tsx, no build step) or .js module by absolute path. */
export function importModule(absolutePath: string): Promise<Record<string, unknown>> {
  const loader = scope.getStore();
  if (loader) return loader(absolutePath);
  return settlingImport(absolutePath, watchImport(absolutePath, importHere(absolutePath))).catch(
    (error: unknown) => {
      throw placed(error, absolutePath);
    },
  );
}

// The error of a module that failed to load here, its message led by the place in the code
// (`tools/t.js:3:1: Unexpected end of input`) as the module worker of dev reports it. What this
// import reached is not known here: a syntax error is looked for in the module itself.
function placed(error: unknown, path: string): unknown {
  if (!(error instanceof Error)) return error;
  const message = moduleLoadMessage(error, [path], true);
  if (message === error.message) return error;
  return Object.assign(new Error(message), { code: (error as { code?: unknown }).code });
}

// Imports whose modules have not finished evaluating, each with the way to fail it.
const unsettled = new Map<Promise<unknown>, { path: string; fail: (error: Error) => void }>();

// The event loop ran empty while imports were pending: nothing is left that could settle a top-level
// await of theirs (a promise nobody resolves), and Node would exit 0 with the command unfinished.
// Failing them lets the command report the module, as it reports one that throws.
function failUnsettled(): void {
  const stuck = [...unsettled.values()];
  unsettled.clear();
  process.off('beforeExit', failUnsettled);
  for (const { path, fail } of stuck) {
    const name = displayPath(process.cwd(), path);
    fail(
      new Error(
        `${name} never finished loading: a top-level \`await\` in it waits for a promise nothing can settle`,
      ),
    );
  }
}

function settlingImport(
  path: string,
  importing: Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    if (unsettled.size === 0) process.on('beforeExit', failUnsettled);
    unsettled.set(importing, { path, fail: reject });
    const done = (): void => {
      if (unsettled.delete(importing) && unsettled.size === 0) process.off('beforeExit', failUnsettled);
    };
    importing.then(
      (mod) => {
        done();
        resolve(mod);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

async function importHere(absolutePath: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absolutePath).href;
  // tsx costs ~15 ms to load: only a project with a .ts module pays for it, when it imports one.
  if (/\.(m|c)?ts$/.test(absolutePath)) {
    const assets = configAssets();
    const { tsImport } = (await import(assets.tsxApiUrl())) as typeof import('tsx/esm/api');
    const mod = (await tsImport(url, pathToFileURL(`${assets.root}/package.json`).href)) as Record<
      string,
      unknown
    >;
    // A .ts file outside a "type": "module" package is compiled to CommonJS: use its exports.
    const cjs = mod.default as { __esModule?: boolean } | undefined;
    return cjs?.__esModule ? (cjs as Record<string, unknown>) : mod;
  }
  return (await import(url)) as Record<string, unknown>;
}
