import { readFileSync } from 'node:fs';

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

// A class's name as its declaration gives it: `class X`, or `X = class` (the name a class
// expression takes from what it is assigned to), or `X = class Y` (its own name wins).
const CLASS = /(?:\b([A-Za-z_$][\w$]*)\s*=\s*)?\bclass(?:\s+(?!extends\b)([A-Za-z_$][\w$]*))?[\s{]/g;

function classNames(files) {
  const names = new Set();
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(CLASS)) {
      const name = match[2] ?? match[1];
      if (name) names.add(name);
    }
  }
  return names;
}

/**
 * The classes a bundle declares under a name none of its inputs gives them: esbuild renames a
 * top-level name that two modules share (`Wait` becomes `Wait2`), and a class's name is what users
 * see (an error's `name`, a stack).
 */
export function renamedClasses(outputs, inputs) {
  const declared = classNames(inputs);
  return [...classNames(outputs)].filter((name) => !declared.has(name));
}
