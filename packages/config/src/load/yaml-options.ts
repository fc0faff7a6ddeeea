import type { Tags } from 'yaml';

// YAML 1.1's types that JSON has not: a Map, a Set, bytes, a Date, pairs.
const NOT_JSON = ['omap', 'set', 'binary', 'timestamp', 'pairs'];

/**
 * How every YAML file of a project is parsed (documents, scripts, cassettes). YAML 1.1's `!!omap`,
 * `!!set`, `!!binary` and `!!timestamp` would make a Map, a Set, bytes or a Date, which the JSON
 * Schemas (and editors) cannot check: `limits: !!omap [...]` passed every check and was then
 * ignored. They are left unresolved (the node keeps its plain shape and gets a warning), in YAML
 * 1.2's core schema (`resolveKnownTags`) and in a file that asks for `%YAML 1.1` (`customTags`).
 */
export const YAML_OPTIONS = {
  uniqueKeys: true,
  prettyErrors: false,
  resolveKnownTags: false,
  customTags: (tags: Tags) =>
    tags.filter(
      (tag) => !NOT_JSON.includes(typeof tag === 'string' ? tag : tag.tag.replace('tag:yaml.org,2002:', '')),
    ),
  // The library warns on stderr (process.emitWarning) about collection keys; they are reported as
  // diagnostics instead, so nothing reaches the user's terminal unasked.
  logLevel: 'error',
} as const;
