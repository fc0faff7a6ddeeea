// Bundles the built core (dist/index.js and dist/testing/index.js) into dist/bundle/, which installed
// users load (publishConfig.exports): one file and a shared chunk instead of ~90 modules, a third of
// the memory and import time. Split chunks give both entries one copy of every class, so an error a
// testing helper throws is an instance of the main entry's class. Core's dependencies stay external
// (ajv is imported lazily, on the first schema check, and stays so); the source maps lead to src/.
// Run by the root build and by prepack, after `tsc -b`:
//   node packages/core/scripts/bundle.js [OUTDIR]
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE, renamedClasses } from './node-bundle.js';

const core = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? `${core}/dist/bundle`);
const { dependencies = {} } = JSON.parse(readFileSync(`${core}/package.json`, 'utf8'));

// Made beside the folder and then swapped in: `pnpm -r pack` rebuilds it (prepack) while other
// processes may be importing it (a test run), which then find it half written or gone for no
// longer than between two renames.
const made = `${out}.${process.pid}`;
rmSync(made, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { index: `${core}/dist/index.js`, testing: `${core}/dist/testing/index.js` },
  outdir: made,
  ...NODE_BUNDLE,
  // A package named here is external with every subpath (`ajv/dist/2020.js`).
  external: Object.keys(dependencies),
  // No `keepNames`: it wraps every function made at run time in an Object.defineProperty call (a
  // tool call's context makes several), which cost the Runner 15-20 % of its step. Errors name
  // themselves after their class (`new.target.name`), so the bundle is refused below instead if it
  // renamed a class to avoid a clash between two modules' top-level names.
  // Through dist's own maps to src/, which is packed too: the maps need not carry the sources.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});
const renamed = renamedClasses(
  Object.keys(metafile.outputs).filter((file) => file.endsWith('.js')),
  Object.keys(metafile.inputs),
);
if (renamed.length > 0) {
  rmSync(made, { recursive: true, force: true });
  console.error(
    `core's bundle renamed ${renamed.join(', ')} (a clash of top-level names between modules): rename one of the classes in src/`,
  );
  process.exit(1);
}
const old = `${out}.old.${process.pid}`;
if (existsSync(out)) renameSync(out, old);
renameSync(made, out);
rmSync(old, { recursive: true, force: true });
console.log(
  `bundled ${Object.keys(metafile.inputs).length} modules into ${relative(process.cwd(), out) || '.'}`,
);
