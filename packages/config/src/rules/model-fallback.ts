import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { didYouMean } from '../load/did-you-mean.js';
import type { ModelSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries } from './rule.js';

/**
 * A model's `fallback` names other models that exist, never itself, and no chain leads back to a
 * model already in it (a -> b -> a), since a chain is followed through each fallback's own list.
 */
export function modelFallback(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const models = validEntries<ModelSpec>(ctx, 'model');
  const chains = new Map(models.map((m) => [m.name, m.spec.fallback ?? []]));
  const reported = new Set<string>();
  for (const model of models) {
    model.spec.fallback?.forEach((name, i) => {
      const at = () => model.locate(['fallback', i]);
      if (name === model.name) {
        out.push(
          diagnostic(model.file, at(), 'model-fallback', `model \`${name}\` cannot fall back to itself`),
        );
      } else if (!ctx.specs.model.has(name)) {
        const known = [...ctx.specs.model.keys()];
        out.push(
          diagnostic(
            model.file,
            at(),
            'model-fallback',
            `fallback model \`${excerpt(name)}\` of model \`${model.name}\` is not defined${didYouMean(name, known)}`,
          ),
        );
      } else {
        const loop = pathBack(name, model.name, chains);
        const key = loop && [...new Set(loop)].sort().join(',');
        if (loop && key && !reported.has(key)) {
          reported.add(key);
          out.push(
            diagnostic(
              model.file,
              at(),
              'model-fallback',
              `fallback cycle: ${[model.name, ...loop].join(' -> ')}`,
            ),
          );
        }
      }
    });
  }
  return out;
}

// The chain of fallbacks from `start` that reaches `target`, or undefined.
function pathBack(start: string, target: string, chains: Map<string, string[]>): string[] | undefined {
  const seen = new Set<string>();
  const walk = (name: string, trail: string[]): string[] | undefined => {
    if (name === target) return [...trail, name];
    if (seen.has(name)) return undefined;
    seen.add(name);
    for (const next of chains.get(name) ?? []) {
      const found = walk(next, [...trail, name]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, []);
}
