import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Where @agentctl/config finds the files and packages it needs at run time. */
export interface ConfigAssets {
  /** The package's folder (where its package.json is). */
  root: string;
  /** The `schemas/` folder: the package's packed copy, else the repository's own. */
  schemaDir: string;
  /** The build's precompiled schema validators (absent when running from source). */
  validatorsFile: string;
  /** TypeScript files the module worker imports as it starts, to warm tsx up. */
  warmUpFiles: string[];
  /** `require` resolving from the package's own dependencies (ajv, picomatch, tsx). */
  require: NodeJS.Require;
  /** URL of tsx's ESM API (`tsImport`), as this package depends on it. */
  tsxApiUrl(): string;
}

const NAME = '@agentctl/config';

// Upward from this file: src/ or dist/ of the package. A bundle of the CLI holds this code in its
// own folder, so there the package is found as the bundle's dependency instead.
function findRoot(from: string): string {
  for (let dir = dirname(from), up = 0; up < 3; dir = dirname(dir), up++) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === NAME
    )
      return dir;
  }
  // The `default` export is dist/index.js, whether the package is a workspace link or installed.
  return dirname(dirname(createRequire(from).resolve(NAME)));
}

// `require.resolve` picks a package's CommonJS entry; tsx's must be imported as its ESM one.
function esmEntry(require: NodeJS.Require, name: string, subpath: string): string {
  const manifest = require.resolve(`${name}/package.json`);
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(join(dirname(manifest), exports[subpath].import.default)).href;
}

function locate(): ConfigAssets {
  const here = fileURLToPath(import.meta.url);
  const root = findRoot(here);
  const require = createRequire(join(root, 'package.json'));
  // An installed package carries its copy of the schemas (made when packing); a clone reads the
  // repository's own folder, the one source of truth.
  const packaged = join(root, 'schemas');
  return {
    root,
    schemaDir: existsSync(packaged) ? packaged : join(root, '..', '..', 'schemas'),
    // Tests run the source: they compile the schemas, so a build never hides a source change.
    validatorsFile: join(root, here.endsWith('.ts') ? 'src' : 'dist', 'schema-validators.cjs'),
    // The TypeScript source ships in the package beside dist.
    warmUpFiles: ['warm-up.ts', 'warm-up-cjs.cts'].map((name) => join(root, 'src', 'watch', name)),
    require,
    tsxApiUrl: () => esmEntry(require, 'tsx', './esm/api'),
  };
}

let assets: ConfigAssets | undefined;

/**
 * The one resolver of @agentctl/config's assets: right from the source (tests), from dist, from a
 * bundle of the CLI and from an installed package. Every path the package needs at run time comes
 * from here, never from a path relative to the file that asks.
 */
export function configAssets(): ConfigAssets {
  assets ??= locate();
  return assets;
}
