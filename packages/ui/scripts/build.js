// Builds the dev UI into dist/: src/main.ts (and the CSS it imports) bundled and minified by
// esbuild under content-hashed names (`app-HASH.js`, `app-HASH.css`, which the server lets browsers
// keep for good), and dist/index.html naming them (revalidated on every load). Run by the root
// build before the CLI bundle:  node packages/ui/scripts/build.js [OUTDIR]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ui = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? join(ui, 'dist'));

rmSync(out, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { app: join(ui, 'src/main.ts') },
  outdir: out,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(metafile.outputs).map((file) => basename(file));
const script = outputs.find((f) => /^app-.+\.js$/.test(f));
const style = outputs.find((f) => /^app-.+\.css$/.test(f));
if (!script || !style) throw new Error(`the UI build made no app script or style: ${outputs.join(', ')}`);
const html = readFileSync(join(ui, 'src/index.html'), 'utf8')
  .replace('%STYLE%', `./${style}`)
  .replace('%SCRIPT%', `./${script}`);
writeFileSync(join(out, 'index.html'), html);
