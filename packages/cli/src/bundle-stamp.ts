import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The file beside a bundle that records what it was built from. */
export const BUNDLE_STAMP = 'stamp.json';

/** What a bundle was built from: each bundled package's build record (relative to the bundle) and its modification time. */
export type BundleStamp = [file: string, mtimeMs: number][];

function mtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The stamp of a bundle in `dir` built now from these build records (`tsc -b`'s `.tsbuildinfo` files). */
export function bundleStamp(dir: string, buildRecords: readonly string[]): BundleStamp {
  return buildRecords.flatMap((file): BundleStamp => {
    const time = mtime(join(dir, file));
    return time === undefined ? [] : [[file, time]];
  });
}

/**
 * Whether the bundle in `dir` holds the code the packages' builds hold now. In a clone, `tsc -b`
 * after the bundle was made rewrites a build record, and the bundle is then stale; an installed
 * package has no build records, and its bundle is the one packed with it.
 */
export function bundleIsCurrent(dir: string): boolean {
  let stamp: BundleStamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, BUNDLE_STAMP), 'utf8')) as BundleStamp;
  } catch {
    return false; // no bundle, or one whose build did not finish
  }
  return stamp.every(([file, time]) => {
    const now = mtime(join(dir, file));
    return now === undefined || now === time;
  });
}
