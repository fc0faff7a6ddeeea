import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The version in the package.json of the CLI or of a package it depends on, found through the
 * package's name from `from` (this module): the same from the build, the CLI's bundle and an install.
 */
export function packageVersion(
  name: '@agentctl/cli' | '@agentctl/core',
  from: string = import.meta.url,
): string {
  // The `default` export lies somewhere under the package's folder (dist/index.js, or an installed
  // core's dist/bundle/index.js): its package.json is the nearest one above that names it.
  const entry = createRequire(from).resolve(name);
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (manifest.name === name) return manifest.version;
  }
  throw new Error(`no package.json of ${name} above ${entry}`);
}
