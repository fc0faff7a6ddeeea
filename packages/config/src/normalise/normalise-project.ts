import type { ProjectDefinition } from '../definitions.js';
import type { ProjectSpec } from '../spec-types.js';

/** The definition of `agentctl.yaml` (or of no project file at all). */
export function normaliseProject(spec: ProjectSpec | undefined): ProjectDefinition {
  return {
    name: spec?.name,
    description: spec?.description,
    include: spec?.include,
    exclude: spec?.exclude,
    envFile: spec?.env_file,
    defaults: { model: spec?.defaults?.model, memory: spec?.defaults?.memory },
  };
}
