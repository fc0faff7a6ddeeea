import { loadSchema } from '../schemas.js';

/**
 * The agent schema the loader checks documents with: the published one without its
 * `workflowConstraints`, which the workflow-constraints rule checks instead, so `validate` says
 * what is wrong in its own words while editors mark the same documents from the published schema.
 */
export function loaderAgentSchema(): object {
  const schema = loadSchema('agent') as { $defs: Record<string, unknown> };
  return { ...schema, $defs: { ...schema.$defs, workflowConstraints: true } };
}
