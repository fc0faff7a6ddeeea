import { readFileSync } from 'node:fs';
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
  // The `default` export is dist/index.js, whether the package is a workspace link or installed.
  const entry = createRequire(from).resolve(name);
  const manifest = join(dirname(dirname(entry)), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
