import { type Agent, linkTree } from '@agentctl/core';
import { createRegistry } from '../create-registry.js';
import type { Diagnostic } from '../diagnostic.js';
import { compareDiagnostics } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { projectEnv } from '../env/project-env.js';
import type { LoadedProject } from '../load/load-project.js';
import type { ProjectSpecs, SpecEntry } from '../load/project-specs.js';
import type { Registry } from '../registry.js';
import { COMPILED_KINDS } from '../rules/rule.js';
import type { AgentSpec } from '../spec-types.js';
import { buildAgent } from './build-agent.js';
import { Compiler } from './compiler.js';
import type { MadeMemory } from './make-memory.js';
import { registryDiagnostics } from './registry-check.js';
import type { ProviderWrapper } from './resolve-model.js';

/** Options of {@link compileProject}. */
export interface CompileOptions {
  /** Providers, tool kinds, middleware, memory and toolsets by name. Default {@link createRegistry}(). */
  registry?: Registry;
  /** The environment for `${VAR}`. Default process.env, over the project's .env file. */
  env?: Env;
  /** Compile only these agents (and what they use). Default: every agent. */
  agents?: readonly string[];
  /** A named model or `provider/model` every LLM agent uses instead of its own. */
  model?: string;
  /** Models of some agents, by agent name; they win over `model`. */
  agentModels?: ReadonlyMap<string, string>;
  /** Wraps each model provider once it is made, e.g. to record every call (`agentctl run --record`). */
  wrapProvider?: ProviderWrapper;
  /**
   * Refuse a model that cannot answer its first request for want of configuration (a missing API
   * key) with an error at its YAML, as `agentctl run` does before it writes a session; `'warn'`
   * says it with a warning there and keeps the model (a server, whose key may come later). Off
   * by default.
   */
  requireKeys?: boolean | 'warn';
  /**
   * What the message of a missing key offers instead, after "or": by default trying the agent
   * offline with `--model offline/echo`; empty for nothing.
   */
  keyHint?: string;
  /**
   * In-process memories (a store with nothing to close, `backend: memory`) of an earlier compile of
   * the project, by their definition: one whose definition is unchanged is reused, so its sessions
   * outlive a reload. This compile's in-process memories are added to `made`.
   */
  carriedMemories?: CarriedMemories;
}

/** In-process memories handed from one compile of a project to the next (see `carriedMemories`). */
export interface CarriedMemories {
  from: ReadonlyMap<string, MadeMemory>;
  made: Map<string, MadeMemory>;
}

/** A compiled project: runtime agents by name, and a way to release what they hold. */
export interface Runtime {
  root: string;
  /** Every named agent (inline sub-agents included), linked into their trees. */
  agents: ReadonlyMap<string, Agent>;
  specs: ProjectSpecs;
  /** The text with every secret value this project interpolated (keys, URLs, headers) replaced by `***`. */
  scrub(text: string): string;
  /** Closes toolsets (MCP servers) and providers; call once when the runtime is no longer used. */
  dispose(): Promise<void>;
}

/**
 * Compiles a loaded project into runtime agents: `${VAR}` resolved, then models, tools,
 * middleware and memory made through the registry. A project with errors from loading gives no
 * runtime; an agent that fails to compile is left out of `agents`, with diagnostics saying why.
 *
 * @example
 * const project = await loadProject();
 * const { runtime, diagnostics } = await compileProject(project, { registry: createRegistry() });
 * const agent = runtime?.agents.get('hello');
 * if (agent) console.log((await new Runner({ agent }).run({ input: 'hi' }).result).text);
 */
export async function compileProject(
  project: LoadedProject,
  options: CompileOptions = {},
): Promise<{ runtime?: Runtime; diagnostics: Diagnostic[] }> {
  const registry = options.registry ?? createRegistry();
  const unchecked = registryDiagnostics(project, registry);
  const checked = [...project.diagnostics, ...unchecked].sort(compareDiagnostics);
  if (checked.some((d) => d.severity === 'error')) return { diagnostics: checked };
  const env = await projectEnv(project.root, project.specs, options.env);
  const compiler = new Compiler(project.root, project.specs, registry, env);
  compiler.modelOverride = options.model;
  compiler.agentModels = options.agentModels;
  compiler.wrapProvider = options.wrapProvider;
  compiler.carriedMemories = options.carriedMemories;
  compiler.requireKeys = options.requireKeys ?? false;
  if (options.keyHint !== undefined) compiler.keyHint = options.keyHint;
  const agents = new Map<string, Agent>();
  const wanted = options.agents ? new Set(options.agents) : undefined;
  // What is not built (an agent left out, a model no agent uses) still names secrets the built
  // agents' code must not print.
  for (const entry of project.entries) if (COMPILED_KINDS.has(entry.kind)) compiler.rememberSecrets(entry);
  const release = () => Promise.allSettled(compiler.disposers.map((dispose) => dispose()));
  try {
    for (const [name, entry] of project.specs.agent) {
      if (wanted && !wanted.has(name)) continue;
      const agent = await buildAgent(entry as SpecEntry<AgentSpec>, compiler);
      if (agent) agents.set(name, agent);
    }
  } catch (error) {
    // Servers and workers an earlier agent started would otherwise keep the process alive.
    await release();
    throw error;
  }
  // Each tree is linked from its root, so every agent knows its parent (transfers need it).
  const children = new Set([...agents.values()].flatMap((agent) => agent.subAgents));
  for (const [name, agent] of agents) {
    if (children.has(agent)) continue;
    try {
      linkTree(agent);
    } catch (error) {
      compiler.error(
        project.specs.agent.get(name) as SpecEntry,
        ['name'],
        'agent-tree',
        (error as Error).message,
      );
    }
  }
  let disposed = false;
  const runtime: Runtime = {
    root: project.root,
    agents,
    specs: project.specs,
    scrub: (text) => compiler.secrets.scrub(text),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await release();
    },
  };
  const warnings = project.diagnostics.filter((d) => d.rule !== 'env-required');
  return { runtime, diagnostics: [...warnings, ...compiler.diagnostics].sort(compareDiagnostics) };
}
