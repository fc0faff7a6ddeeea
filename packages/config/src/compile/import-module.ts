import { AsyncLocalStorage } from 'node:async_hooks';
import { pathToFileURL } from 'node:url';
import { configAssets } from '../assets.js';

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
export async function importModule(absolutePath: string): Promise<Record<string, unknown>> {
  const loader = scope.getStore();
  if (loader) return loader(absolutePath);
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
