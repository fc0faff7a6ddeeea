// How the monorepo's packages are bundled for Node (core's bundle, the CLI's): shared by their
// bundle scripts, so that both make the same kind of output.

/**
 * esbuild options for bundling a package's built ES modules for Node: split chunks, so a lazily
 * imported module stays lazy and entries share one copy of each module; the oldest Node the
 * packages' `engines` allow.
 */
export const NODE_BUNDLE = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
};
