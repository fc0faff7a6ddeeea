import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

/** Imports a .ts (through tsx, no build step) or .js module by absolute path. */
export async function importModule(absolutePath: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absolutePath).href;
  if (/\.(m|c)?ts$/.test(absolutePath))
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  return (await import(url)) as Record<string, unknown>;
}
