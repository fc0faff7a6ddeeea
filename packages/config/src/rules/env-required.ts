import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { envReferences } from '../env/interpolate.js';
import { type RuleContext, walkStrings } from './rule.js';

/** `${VAR:?message}` with VAR unset: a warning here, an error when the project is compiled. */
export function envRequired(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of ctx.entries) {
    if (entry.parent !== undefined) continue; // inline agents are walked as part of their parent
    walkStrings(entry.spec, (text, path) => {
      for (const ref of envReferences(text)) {
        const value = ctx.env[ref.name];
        if (ref.operator === '?' && (value === undefined || value === '')) {
          const why = ref.argument ? `: ${ref.argument}` : '';
          out.push(
            diagnostic(
              entry.file,
              entry.locate(path),
              'env-required',
              `environment variable ${ref.name} is not set${why}`,
              'warning',
            ),
          );
        }
      }
    });
  }
  return out;
}
