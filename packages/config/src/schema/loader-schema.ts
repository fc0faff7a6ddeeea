import { loadSchema } from '../schemas.js';

/**
 * The definitions of the published schemas that validate checks by a rule instead, by schema file,
 * each with the rule that does: editors mark what these refuse from the published schema, while
 * the loader reads each as `true`, so `validate` says what is wrong in the rule's own words (and
 * with what no schema keyword can say, such as the zones the runtime knows).
 */
export const RULE_CHECKED_DEFS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  agent: { workflowConstraints: 'workflow-constraints', unreservedName: 'reserved-name' },
  tool: { hostsOfArgumentHost: 'plugin-options' },
  common: {
    cronPattern: 'schedule-timing',
    timeZoneName: 'schedule-timing, plugin-options',
    sessionIdRule: 'schedule-timing',
    jsonSchemaDialect: 'output-schema-valid',
    httpUrlWithoutCredentials: 'plugin-options',
    globPattern: 'glob-pattern',
  },
};

/** The schema the loader checks documents of `name` with: the published one, rule-checked definitions as `true`. */
export function loaderSchema(name: string): object {
  const schema = loadSchema(name) as { $defs?: Record<string, unknown> };
  const checked = RULE_CHECKED_DEFS[name];
  if (!checked) return schema;
  const defs = { ...schema.$defs };
  for (const def of Object.keys(checked)) defs[def] = true;
  return { ...schema, $defs: defs };
}
