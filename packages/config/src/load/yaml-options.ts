/**
 * How every YAML file of a project is parsed (documents, scripts, cassettes). `resolveKnownTags`
 * off: YAML 1.1's `!!omap`, `!!set`, `!!binary` and `!!timestamp` would make a Map, a Set, bytes
 * or a Date, which the JSON Schemas (and editors) cannot check: `limits: !!omap [...]` passed every
 * check and was then ignored. Unresolved, the node keeps its plain shape and gets a warning.
 */
export const YAML_OPTIONS = {
  uniqueKeys: true,
  prettyErrors: false,
  resolveKnownTags: false,
  // The library warns on stderr (process.emitWarning) about collection keys; they are reported as
  // diagnostics instead, so nothing reaches the user's terminal unasked.
  logLevel: 'error',
} as const;
