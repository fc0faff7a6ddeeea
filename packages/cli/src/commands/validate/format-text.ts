import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Diagnostic } from '@agentctl/config';
import { styles } from '../../io.js';

/** Diagnostics for a person: `file:line:col: severity: message [rule]`, with a code frame on a terminal. */
export function formatText(diagnostics: readonly Diagnostic[], root: string, tty: boolean): string {
  const s = styles(tty);
  const cache = new Map<string, string[] | undefined>();
  const out: string[] = [];
  for (const d of diagnostics) {
    const severity = d.severity === 'error' ? s.red('error') : s.yellow('warning');
    out.push(
      // One line per diagnostic, so editors' problem matchers and grep see every one whole.
      `${s.bold(`${d.file}:${d.line}:${d.col}`)}: ${severity}: ${d.message.replace(/\r?\n/g, '\\n')} ${s.dim(`[${d.rule}]`)}\n`,
    );
    if (!tty) continue;
    const path = isAbsolute(d.file) ? d.file : join(root, d.file);
    if (!cache.has(path)) cache.set(path, readLines(path));
    const lines = cache.get(path);
    const line = lines?.[d.line - 1];
    if (line === undefined) continue;
    const gutter = String(d.line).padStart(4);
    const width = d.endLine === d.line ? Math.max(1, d.endCol - d.col) : Math.max(1, line.length - d.col + 1);
    out.push(
      `${s.dim(`${gutter} | `)}${line}\n${s.dim(`${' '.repeat(4)} | `)}${' '.repeat(Math.max(0, d.col - 1))}${s.red('^'.repeat(width))}\n`,
    );
  }
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  out.push(
    errors + warnings === 0
      ? s.green('✓ no problems\n')
      : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
  );
  return out.join('');
}

function readLines(path: string): string[] | undefined {
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/);
  } catch {
    return undefined;
  }
}
