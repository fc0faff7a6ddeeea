import type { LoadedProject } from '../load/load-project.js';
import { DEFAULT_MEMORY_BACKEND } from '../normalise/normalise-memory.js';
import type { Registry } from '../registry.js';

/** A document whose plugin declares `capabilities.needsNetwork`: validate checks it only so far. */
export interface NetworkUse {
  kind: 'model' | 'toolset' | 'memory' | 'agent';
  /** The document's name. */
  name: string;
  /** The plugin (provider, toolset kind, memory backend or remote agent type) that needs the network. */
  plugin: string;
}

/** The toolset kind a toolset document uses: the first registered kind it has a key for. */
export function toolsetKindOf(spec: object, registry: Registry): string | undefined {
  return registry.names('toolset').find((kind) => kind in spec);
}

/**
 * The models, toolsets and memories whose plugin needs the network (as its descriptor says), and
 * the remote agents: what an offline `validate` did not reach. `validate --connect` starts the
 * toolsets, connects the memories and reaches the remote agents among them; models are never called.
 */
export function networkUses(project: LoadedProject, registry: Registry): NetworkUse[] {
  const out: NetworkUse[] = [];
  const needs = (kind: 'provider' | 'toolset' | 'memory', plugin: string | undefined) =>
    plugin !== undefined && registry.describe(kind, plugin)?.capabilities?.needsNetwork === true;
  for (const [name, entry] of project.specs.model) {
    const provider = (entry.spec as { provider?: string }).provider;
    if (needs('provider', provider)) out.push({ kind: 'model', name, plugin: provider as string });
  }
  for (const [name, entry] of project.specs.toolset) {
    const plugin = toolsetKindOf(entry.spec as object, registry);
    if (needs('toolset', plugin)) out.push({ kind: 'toolset', name, plugin: plugin as string });
  }
  for (const [name, entry] of project.specs.memory) {
    const backend = (entry.spec as { backend?: string }).backend ?? DEFAULT_MEMORY_BACKEND;
    if (needs('memory', backend)) out.push({ kind: 'memory', name, plugin: backend });
  }
  // A remote agent is always elsewhere: one whose type can be reached is listed.
  for (const [name, entry] of project.specs.agent) {
    const type = (entry.spec as { type?: string }).type;
    if (type !== undefined && registry.remoteProbes.has(type))
      out.push({ kind: 'agent', name, plugin: type });
  }
  return out;
}
