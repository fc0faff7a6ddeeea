import { isPlainObject } from '@agentctl/core';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { interpolate, interpolateDeep, MissingEnvError } from '../env/interpolate.js';
import type { IndexedEntry } from '../load/index-documents.js';
import { errorField } from '../normalise/error-field.js';
import { normalise } from '../normalise/normalise.js';
import type { Registry } from '../registry.js';
import { excerpt } from './excerpt.js';
import { COMPILED_KINDS, type RuleContext } from './rule.js';

// A tool kind's own rules (the http kind's url) on its section as run resolves it: the rules skip
// a value written with `${VAR}`, which plugin-options sees only as written. A problem is named by
// the value as written; the resolved one may hold a secret.
function toolKindRefusals(
  entry: IndexedEntry,
  resolved: Record<string, unknown>,
  registry: Registry,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const kind of registry.names('toolKind')) {
    const written = (entry.spec as Record<string, unknown>)[kind];
    const section = resolved[kind];
    if (!isPlainObject(written) || !isPlainObject(section) || !JSON.stringify(written).includes('${'))
      continue;
    for (const rule of registry.describe('toolKind', kind)?.rules ?? [])
      for (const problem of rule(section)) {
        const at = valueAt(written, problem.path);
        if (typeof at !== 'string' || !at.includes('${')) continue;
        const value = valueAt(section, problem.path);
        const message =
          typeof value === 'string' && value.length > 0
            ? problem.message.split(value).join('***')
            : problem.message;
        out.push(
          diagnostic(
            entry.file,
            entry.locate([kind, ...problem.path]),
            'env-values',
            `tool kind ${kind}: ${message} once \`${excerpt(at)}\` is resolved with this environment`,
            problem.severity,
          ),
        );
      }
  }
  return out;
}

function valueAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let at = value;
  for (const step of path)
    at = isPlainObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[step] : undefined;
  return at;
}

/**
 * A value written with `${VAR}` that the schema cannot check (a duration such as
 * `timeout: ${T:-abc}`) is checked as run resolves it with this environment, so validate refuses
 * what run would. An unset `${VAR:?message}` is env-required's.
 */
export function envValues(ctx: RuleContext): Diagnostic[] {
  const registry = ctx.registry;
  if (!registry) return [];
  const out: Diagnostic[] = [];
  for (const entry of ctx.entries) {
    if (!entry.valid || entry.parent !== undefined || !COMPILED_KINDS.has(entry.kind)) continue;
    if (!JSON.stringify(entry.spec).includes('$')) continue;
    let complete = true;
    const spec = interpolateDeep(entry.spec, (text) => {
      try {
        return interpolate(text, ctx.env);
      } catch (error) {
        if (!(error instanceof MissingEnvError)) throw error;
        complete = false;
        return text;
      }
    });
    if (!complete) continue;
    try {
      normalise(entry.kind, spec as never, registry);
    } catch (error) {
      const message = (error as Error).message;
      out.push(diagnostic(entry.file, entry.locate(errorField(entry.spec, message)), 'env-values', message));
      continue;
    }
    if (entry.kind === 'tool')
      out.push(...toolKindRefusals(entry, spec as Record<string, unknown>, registry));
  }
  return out;
}
