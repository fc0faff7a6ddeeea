import type { MiddlewareDefinition } from '../definitions.js';
import type { Registry } from '../registry.js';
import type { MiddlewareSpec } from '../spec-types.js';
import { normaliseOptions } from './normalise-options.js';

/** The definition of a middleware spec that passed its schema. */
export function normaliseMiddleware(spec: MiddlewareSpec, registry: Registry): MiddlewareDefinition {
  const schema = spec.builtin ? registry.describe('middleware', spec.builtin)?.schema : undefined;
  return {
    name: spec.name,
    description: spec.description,
    builtin: spec.builtin,
    module: spec.module,
    export: spec.export ?? 'default',
    options: normaliseOptions(spec.options, schema),
  };
}
