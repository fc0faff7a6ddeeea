import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { interpolate, interpolateDeep, MissingEnvError } from '../env/interpolate.js';
import { errorField } from '../normalise/error-field.js';
import { normalise } from '../normalise/normalise.js';
import { COMPILED_KINDS, type RuleContext } from './rule.js';

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
    }
  }
  return out;
}
