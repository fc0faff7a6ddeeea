import type { IndexedEntry } from '../load/index-documents.js';
import { walkStrings } from '../rules/rule.js';
import { type Env, envReferences } from './interpolate.js';
import { Secrets } from './secrets.js';

/**
 * The secrets among the values of the `${VAR}`s a project names, for what `validate` echoes of a
 * module's own error before anything is compiled: each value a credential by its variable's name
 * or by its look (a key-like piece), wherever it is written, which hides at least what a run hides.
 */
export function referencedSecrets(entries: readonly IndexedEntry[], env: Env): Secrets {
  const secrets = new Secrets();
  const seen = new Set<string>();
  for (const entry of entries) {
    walkStrings(entry.spec, (text) => {
      for (const { name } of envReferences(text)) {
        const value = env[name];
        if (seen.has(name) || value === undefined) continue;
        seen.add(name);
        secrets.offer(value, [name]);
      }
    });
  }
  return secrets;
}
