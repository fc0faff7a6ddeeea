// Keywords that bring properties in from elsewhere: closing the top level beside them would refuse
// the properties they declare, so such a schema is left as written.
const COMPOSING = ['allOf', 'anyOf', 'oneOf', '$ref', '$dynamicRef', 'if', 'dependentSchemas'];

/**
 * The parameters of a command or HTTP tool as the model and the validator see them: an object
 * schema that says nothing about undeclared properties gets `additionalProperties: false`, since
 * the tool forwards the whole arguments object (`stdin_json`, the default body) and an approval
 * rule on the declared arguments says nothing about others. A schema that says something
 * (`additionalProperties`, `unevaluatedProperties`, `patternProperties`), composes others, or
 * declares no `properties` (a free-form object) is kept; no parameters at all means no arguments.
 */
export function closedParameters(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
  if (parameters === undefined) return { type: 'object', properties: {}, additionalProperties: false };
  // `{ type: object }` with no `properties` is a free-form object on purpose; left open.
  const open =
    (parameters.type === 'object' || parameters.type === undefined) &&
    parameters.properties !== undefined &&
    parameters.additionalProperties === undefined &&
    parameters.unevaluatedProperties === undefined &&
    parameters.patternProperties === undefined &&
    !COMPOSING.some((keyword) => keyword in parameters);
  return open ? { ...parameters, additionalProperties: false } : parameters;
}
