import type { Diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { LoadedProject } from '../load/load-project.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { Registry } from '../registry.js';
import { pluginOptions } from '../rules/plugin-options.js';
import type { RuleContext } from '../rules/rule.js';

/**
 * The plugin-options rule, run against the registry a compile uses when the project was loaded
 * without one: options `validate` would refuse with that registry, `compile` refuses the same
 * way, instead of a plugin reading options nobody checked. A project loaded with a registry was
 * checked already (and `run AGENT` may have scoped those diagnostics to the agent's tree).
 * Unknown plugin names need no second look: compile reports them per agent as it makes each one.
 */
export function registryDiagnostics(project: LoadedProject, registry: Registry): Diagnostic[] {
  if (project.registry) return [];
  const { specs } = project;
  const { project: file, ...byKind } = specs;
  const all: Array<SpecEntry | undefined> = [file, ...Object.values(byKind).flatMap((m) => [...m.values()])];
  const context: RuleContext = {
    root: project.root,
    specs,
    entries: all.filter((e) => e !== undefined && 'valid' in e) as IndexedEntry[],
    env: {},
    registry,
  };
  return pluginOptions(context);
}
