// @agentctl/core as the benchmarks load it: as published, its bundle (packages/core/scripts/bundle.js,
// what an installed package's exports point at), not the ~90 modules of dist/. In the monorepo the
// `agentctl-bundle` export condition picks the bundle: every benchmark child runs node with it
// (CHILD_FLAGS), so @agentctl/tracing's own import of core gets the bundle too, and
// `loadCore()` resolves core as tracing does: a subject and tracing share one copy.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CONDITION = 'agentctl-bundle';

/** The node flag under which `@agentctl/core` resolves to its bundle in the monorepo. */
export const CORE_CONDITION = `--conditions=${CONDITION}`;

/** The flags of every benchmark child that runs node: the collector exposed, core as published. */
export const CHILD_FLAGS = ['--expose-gc', CORE_CONDITION];

/** The path of core's bundle, as its package.json's exports name it; an error when it is older than the build. */
export function coreBundle() {
  const dir = new URL('../../packages/core/', import.meta.url);
  const { exports } = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
  const file = fileURLToPath(new URL(exports['.'][CONDITION], dir));
  // `tsc -b` rewrites its build record when it rebuilt core: the bundle then holds older code.
  if (statSync(file).mtimeMs < statSync(new URL('dist/.tsbuildinfo', dir)).mtimeMs) {
    throw new Error(`${file} is older than core's build: run \`pnpm build\``);
  }
  return file;
}

/** Imports @agentctl/core as @agentctl/tracing resolves it, after checking that this is the bundle. */
export async function loadCore() {
  const file = createRequire(new URL('../../packages/tracing/package.json', import.meta.url)).resolve(
    '@agentctl/core',
  );
  if (file !== coreBundle()) {
    throw new Error(
      `@agentctl/core resolves to ${file}, not to its bundle: run node with ${CHILD_FLAGS.join(' ')}, as every benchmark's children do`,
    );
  }
  return import(pathToFileURL(file).href);
}
