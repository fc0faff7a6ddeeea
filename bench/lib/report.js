// Small helpers every benchmark shares: statistics, a forced GC, a table printer and the JSON writer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The p-th percentile (0..100) of a list of numbers, nearest rank. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Rounds to a number of significant-looking decimals for printing. */
export function round(value, digits = 1) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Bytes to MiB, one decimal. */
export const mib = (bytes) => round(bytes / 1024 / 1024, 1);

// A benchmark started without --expose-gc still gets a working gc() (heap figures need one).
if (typeof globalThis.gc !== 'function') setFlagsFromString('--expose-gc');
const collect = globalThis.gc ?? runInNewContext('gc');

/** Forces a full garbage collection. */
export function gc() {
  collect();
  collect();
}

/** Prints rows under a header in columns: numbers right-aligned, text left-aligned. */
export function printTable(title, header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => (typeof c === 'number' ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i])))
      .join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

/**
 * Writes bench/results/<name>.json. `summary` rows ({ workload, subject, metric, value, unit }) are
 * what bench/run.js puts in its one table; `details` holds everything else.
 */
export function writeResult(name, summary, details) {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const body = {
    benchmark: name,
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    summary,
    details,
  };
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(body, null, 2)}\n`);
  return body;
}
