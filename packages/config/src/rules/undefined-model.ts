import { providersOfModel } from '../compile/model-catalogue.js';
import { didYouMean } from '../load/did-you-mean.js';
import { excerpt } from './excerpt.js';

/**
 * The message for a model reference that names no model document: the nearest model name, or for
 * a provider's model id written alone (`gpt-4.1-mini`) the `provider/model` form it needs.
 */
export function undefinedModelMessage(ref: string, known: Iterable<string>): string {
  const providers = providersOfModel(ref);
  const hint =
    didYouMean(ref, known) ||
    (providers.length > 0 ? `; did you mean \`${providers[0]}/${excerpt(ref)}\`?` : '');
  return `model \`${excerpt(ref)}\` is not defined${hint} (use a model name, or "provider/model" such as "offline/echo")`;
}
