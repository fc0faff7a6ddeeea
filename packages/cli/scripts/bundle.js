// Bundles the built CLI (dist/main.js and every workspace package and dependency it imports) into
// dist/bundle/: a few files to load instead of some 250 modules, which is most of a cold start.
// Lazily imported commands stay lazy (split chunks). The bin uses the bundle while it is current
// (see src/bundle-stamp.ts); @agentctl/config finds its assets through its own resolver, so its
// code works from here. Run by the root build and by prepack, after `tsc -b`:
//   node packages/cli/scripts/bundle.js [OUTDIR]
import { rmSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_STAMP, bundleStamp } from '../dist/bundle-stamp.js';

const cli = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? `${cli}/dist/bundle`);

rmSync(out, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { main: `${cli}/dist/main.js` },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  metafile: true,
  logLevel: 'warning',
  // tsx is imported by the URL @agentctl/config resolves (a loader of its own); fsevents is native.
  external: ['tsx', 'fsevents'],
  // Bundled CommonJS code requires Node's built-ins: give it a require.
  banner: {
    js: "import { createRequire as __agentctlRequire } from 'node:module';\nconst require = __agentctlRequire(import.meta.url);",
  },
});
// A dynamic import() of a CommonJS module gets only a `default` export from a bundle, where Node
// gives named ones too: code that runs from the build would break here. Import it statically in a
// module that is itself imported on demand (as core's create-ajv.ts does).
const cjsSplits = Object.values(metafile.outputs)
  .map((output) => output.entryPoint)
  .filter((entry) => entry !== undefined && metafile.inputs[entry]?.format === 'cjs');
if (cjsSplits.length > 0) {
  rmSync(out, { recursive: true, force: true });
  console.error(
    `dynamic import() of CommonJS modules, which a bundle cannot give named exports:\n  ${cjsSplits.join('\n  ')}`,
  );
  process.exit(1);
}
// Every workspace package bundled, by its dist folder; the stamp ties the bundle to their builds.
const packages = new Set();
for (const input of Object.keys(metafile.inputs)) {
  const real = resolve(input);
  const at = real.lastIndexOf('/dist/');
  if (!real.includes('/node_modules/') && at > 0) packages.add(real.slice(0, at));
}
const records = [...packages].sort().map((dir) => relative(out, `${dir}/dist/.tsbuildinfo`));
writeFileSync(`${out}/${BUNDLE_STAMP}`, `${JSON.stringify(bundleStamp(out, records))}\n`);
console.log(
  `bundled ${Object.keys(metafile.inputs).length} modules into ${relative(process.cwd(), out) || '.'}`,
);
