// Bundles the built CLI (dist/main.js and every workspace package and dependency it imports) into
// dist/bundle/: a few files to load instead of some 250 modules, which is most of a cold start.
// Lazily imported commands stay lazy (split chunks). The bin uses the bundle while it is current
// (see src/bundle-stamp.ts); @agentctl/config finds its assets through its own resolver, so its
// code works from here. Run by the root build and by prepack, after `tsc -b`:
//   node packages/cli/scripts/bundle.js [OUTDIR]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE } from '../../core/scripts/node-bundle.js';
import { BUNDLE_STAMP, bundleStamp } from '../dist/bundle-stamp.js';

// Whether Node loads this file as CommonJS: `.cjs`, or `.js` in a package not of "type": "module".
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type !== 'module';
    } catch {
      // no package.json here: look further up
    }
  }
  return true;
}

// Node gives `await import('a-commonjs-package')` named exports (found by its lexer); a bundle gives
// such an import only `default`. So each dynamic import of a CommonJS package goes through a small
// ES module that re-exports the names Node itself finds when it imports the package here.
const commonJsDynamicImports = {
  name: 'commonjs-dynamic-imports',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.path.startsWith('@agentctl/')) return undefined;
      const resolved = await builder.resolve(args.path, {
        kind: 'import-statement',
        resolveDir: args.resolveDir,
      });
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return undefined;
      const names = Object.keys(await import(pathToFileURL(resolved.path).href)).filter(
        (n) => n !== 'default',
      );
      return { path: resolved.path, namespace: 'commonjs-dynamic-import', pluginData: { names } };
    });
    builder.onLoad({ filter: /.*/, namespace: 'commonjs-dynamic-import' }, (args) => ({
      resolveDir: dirname(args.path),
      loader: 'js',
      contents: [
        `import * as m from ${JSON.stringify(args.path)};`,
        'export default m.default;',
        ...args.pluginData.names.map(
          (name, i) =>
            `const n${i} = m[${JSON.stringify(name)}]; export { n${i} as ${JSON.stringify(name)} };`,
        ),
      ].join('\n'),
    }));
  },
};

const cli = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? `${cli}/dist/bundle`);

rmSync(out, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { main: `${cli}/dist/main.js` },
  outdir: out,
  ...NODE_BUNDLE,
  metafile: true,
  logLevel: 'warning',
  // tsx is imported by the URL @agentctl/config resolves (a loader of its own); fsevents is native;
  // @agentctl/tracing (and OpenTelemetry, CommonJS) is imported only when tracing is on, from node_modules.
  external: ['tsx', 'fsevents', '@agentctl/tracing'],
  plugins: [commonJsDynamicImports],
  // Bundled CommonJS code requires Node's built-ins: give it a require.
  banner: {
    js: "import { createRequire as __agentctlRequire } from 'node:module';\nconst require = __agentctlRequire(import.meta.url);",
  },
});
// What the plugin above cannot see (a relative import() of a CommonJS file) must not ship.
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
