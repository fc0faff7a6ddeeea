import type { DefinitionByKind } from '../definitions.js';
import type { Registry } from '../registry.js';
import type { Kind } from '../schemas.js';
import type { SpecByKind } from '../spec-types.js';
import { normaliseAgent } from './normalise-agent.js';
import { normaliseMemory } from './normalise-memory.js';
import { normaliseMiddleware } from './normalise-middleware.js';
import { normaliseModel } from './normalise-model.js';
import { normaliseProject } from './normalise-project.js';
import { normaliseSchedule } from './normalise-schedule.js';
import { normaliseTest } from './normalise-test.js';
import { normaliseTool } from './normalise-tool.js';
import { normaliseToolset } from './normalise-toolset.js';

/**
 * The one step from a raw spec (as written, schema-checked, `${VAR}` resolved) to the definition
 * everything after it reads. Throws only on a value the schema could not see, e.g. a duration
 * that came from a variable.
 */
export function normalise<K extends Kind>(
  kind: K,
  spec: SpecByKind[K],
  registry: Registry,
): DefinitionByKind[K] {
  return NORMALISERS[kind](spec, registry);
}

const NORMALISERS: { [K in Kind]: (spec: SpecByKind[K], registry: Registry) => DefinitionByKind[K] } = {
  project: (spec) => normaliseProject(spec),
  agent: normaliseAgent,
  model: normaliseModel,
  tool: (spec, registry) => normaliseTool(spec, registry.names('toolKind')),
  toolset: (spec) => normaliseToolset(spec),
  middleware: normaliseMiddleware,
  memory: normaliseMemory,
  test: (spec) => normaliseTest(spec),
  schedule: (spec) => normaliseSchedule(spec),
};
