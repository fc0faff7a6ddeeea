import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { RuleContext } from './rule.js';

/** Names are unique per kind across the project (inline sub-agents included). */
export function uniqueNames(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const first = new Map<string, IndexedEntry>();
  for (const entry of ctx.entries) {
    if (entry.kind === 'project') continue;
    const key = `${entry.kind}\0${entry.name}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, entry);
      continue;
    }
    out.push(
      diagnostic(
        entry.file,
        entry.range,
        'unique-names',
        `${entry.kind} \`${entry.name}\` is already defined at ${earlier.file}:${earlier.range.line}:${earlier.range.col}`,
      ),
    );
  }
  return out;
}
