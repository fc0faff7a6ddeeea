import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_STAMP, bundleIsCurrent, bundleStamp } from '../src/bundle-stamp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package folder with a build record and a bundle folder beside it, as `tsc -b` and the bundler leave them. */
function layout(): { bundle: string; record: string } {
  const root = mkdtempSync(join(tmpdir(), 'agentctl-stamp-'));
  dirs.push(root);
  mkdirSync(join(root, 'dist/bundle'), { recursive: true });
  const record = join(root, 'dist/.tsbuildinfo');
  writeFileSync(record, '{}');
  utimesSync(record, 1_000, 1_000);
  return { bundle: join(root, 'dist/bundle'), record };
}

function stamp(bundle: string, records: string[]): void {
  writeFileSync(join(bundle, BUNDLE_STAMP), JSON.stringify(bundleStamp(bundle, records)));
}

describe('bundle stamp', () => {
  it('keeps a bundle current until a build record it was made from changes', () => {
    const { bundle, record } = layout();
    stamp(bundle, ['../.tsbuildinfo']);
    expect(bundleIsCurrent(bundle)).toBe(true);
    utimesSync(record, 2_000, 2_000); // `tsc -b` rebuilt the package
    expect(bundleIsCurrent(bundle)).toBe(false);
  });

  it('trusts an installed bundle, whose package ships no build records', () => {
    const { bundle, record } = layout();
    stamp(bundle, ['../.tsbuildinfo']);
    rmSync(record);
    expect(bundleIsCurrent(bundle)).toBe(true);
  });

  it('never uses a bundle without a stamp (none built, or its build did not finish)', () => {
    const { bundle } = layout();
    expect(bundleIsCurrent(bundle)).toBe(false);
    writeFileSync(join(bundle, BUNDLE_STAMP), '[["../.tsbuildinfo",');
    expect(bundleIsCurrent(bundle)).toBe(false);
  });

  it('records only the build records that exist', () => {
    const { bundle } = layout();
    expect(bundleStamp(bundle, ['../.tsbuildinfo', '../../missing/.tsbuildinfo'])).toEqual([
      ['../.tsbuildinfo', 1_000_000],
    ]);
  });
});
