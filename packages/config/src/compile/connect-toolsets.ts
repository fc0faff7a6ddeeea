import { globMatcher, RESERVED_TOOL_NAMES, reservedToolMessage } from '@agentctl/core';
import { createRegistry } from '../create-registry.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { projectEnv } from '../env/project-env.js';
import type { LoadedProject } from '../load/load-project.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { Registry } from '../registry.js';
import { builtinToolShapes } from '../rules/builtin-tool-shapes.js';
import { excerpt } from '../rules/excerpt.js';
import type { AgentSpec } from '../spec-types.js';
import { Compiler } from './compiler.js';
import { networkUses, toolsetKindOf } from './network-plugins.js';
import { unknownApprovalTools } from './unknown-approval-tools.js';

const matches = (pattern: string, names: readonly string[]) => names.some((n) => globMatcher(pattern)(n));

/**
 * `validate --connect`: starts the server of every toolset whose kind needs the network (what an
 * offline validate could not reach, see {@link networkUses}), lists its real tools, and checks the names
 * the YAML writes against them: the toolset's `include`/`exclude` and `approval` keys (server
 * names, or names with the prefix), agents' approval keys that carry a toolset's prefix, and that
 * no tool it gives an agent clashes with another of the agent's tools. No model is called; every
 * server is stopped before this returns.
 */
export async function connectToolsets(
  project: LoadedProject,
  options: { registry?: Registry; env?: Env } = {},
): Promise<Diagnostic[]> {
  const env = await projectEnv(project.root, project.specs, options.env);
  const compiler = new Compiler(project.root, project.specs, options.registry ?? createRegistry(), env);
  const out: Diagnostic[] = [];
  const report = (entry: SpecEntry, path: Array<string | number>, message: string, key = false) =>
    out.push(diagnostic(entry.file, entry.locate(path, { key }), 'mcp-names', message));
  const exposedBySet = new Map<string, { prefix: string; names: string[] }>();
  const exposedTools = new Map<string, string[]>();
  const reach = networkUses(project, compiler.registry).filter((use) => use.kind === 'toolset');
  for (const { name } of reach) {
    const entry = project.specs.toolset.get(name);
    const kind = entry && toolsetKindOf(entry.spec as object, compiler.registry);
    const factory = kind === undefined ? undefined : compiler.registry.toolsets.get(kind);
    const spec = entry && compiler.definition('toolset', entry);
    if (!entry || !spec || !factory) continue;
    // Opened unfiltered and unprefixed: the names are the server's own.
    const bare = { ...spec, include: undefined, exclude: undefined, prefix: undefined, approval: undefined };
    const opened = await compiler.attempt(entry, ['mcp'], 'toolset', () =>
      factory(bare, compiler.factoryContext(entry)),
    );
    if (!opened) continue;
    const names = opened.tools.map((t) => t.name);
    await opened.dispose();
    // The names agents get, as `run` opens the toolset: include/exclude, then the prefix (names
    // come as the model may see them, so prefixing cannot change their characters, only cut them).
    const kept = names.filter(
      (n) =>
        (!spec.include || spec.include.some((p) => matches(p, [n]))) &&
        !(spec.exclude ?? []).some((p) => matches(p, [n])),
    );
    exposedTools.set(
      entry.name,
      kept.map((n) => `${spec.prefix ?? ''}${n}`.slice(0, 64)),
    );
    const prefix = spec.prefix ?? '';
    exposedBySet.set(entry.name, { prefix, names: names.map((n) => `${prefix}${n}`) });
    const list = excerpt(names.join(', '), 300);
    for (const field of ['include', 'exclude'] as const)
      spec[field]?.forEach((pattern, i) => {
        if (!matches(pattern, names))
          report(
            entry,
            [field, i],
            `\`${excerpt(pattern)}\` matches no tool of server \`${entry.name}\` (it has: ${list})`,
          );
      });
    if (spec.approval && typeof spec.approval === 'object')
      for (const key of Object.keys(spec.approval))
        if (
          !matches(key, names) &&
          !matches(
            key,
            names.map((n) => `${prefix}${n}`),
          )
        )
          report(
            entry,
            ['approval', key],
            `approval key \`${excerpt(key)}\` matches no tool of server \`${entry.name}\``,
            true,
          );
  }
  out.push(...compiler.diagnostics);
  for (const agent of project.specs.agent.values() as Iterable<SpecEntry<AgentSpec>>) {
    const sets = (agent.spec.tools ?? []).flatMap((t) =>
      typeof t === 'object' && 'toolset' in t ? [exposedBySet.get(t.toolset)] : [],
    );
    for (const key of Object.keys(agent.spec.approval?.tools ?? {})) {
      const set = sets.find((s) => s && s.prefix !== '' && key.startsWith(s.prefix));
      if (set && !matches(key, set.names))
        report(
          agent,
          ['approval', 'tools', key],
          `approval key \`${excerpt(key)}\` matches no tool the server gives (${excerpt(set.names.join(', '), 300)})`,
          true,
        );
    }
  }
  for (const agent of project.specs.agent.values() as Iterable<SpecEntry<AgentSpec>>) {
    out.push(...toolsetNameClashes(agent, exposedTools, project.root));
    // An `approval.tools` key with a toolset's prefix is reported above (as `mcp-names`).
    const prefixes = (agent.spec.tools ?? []).flatMap((t) =>
      typeof t === 'object' && 'toolset' in t ? [exposedBySet.get(t.toolset)?.prefix ?? ''] : [],
    );
    const reported = (path: ReadonlyArray<string | number>) =>
      path[1] === 'tools' && prefixes.some((p) => p !== '' && String(path[2]).startsWith(p));
    out.push(...approvalNames(agent, exposedTools, project.root, reported));
  }
  await Promise.allSettled(compiler.disposers.map((dispose) => dispose()));
  return out;
}

// What `run` refuses once a toolset's names are known: one of them taken by another tool of the
// agent, or by a tool the runtime gives the agent itself. Clashes between tools known without
// starting anything are the offline rules' (`duplicate-tool`, `reserved-name`).
function toolsetNameClashes(
  agent: SpecEntry<AgentSpec>,
  exposedTools: ReadonlyMap<string, string[]>,
  root: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, { entry: number; toolset?: string }>();
  (agent.spec.tools ?? []).forEach((ref, i) => {
    let names: readonly string[] = [];
    let toolset: string | undefined;
    if (typeof ref === 'string') names = [ref];
    else if ('agent' in ref) names = [ref.agent];
    else if ('builtin' in ref) names = builtinNames(ref, root);
    else if ('toolset' in ref) {
      toolset = ref.toolset;
      names = exposedTools.get(ref.toolset) ?? [];
    }
    for (const name of names) {
      const first = seen.get(name);
      const from = toolset ? ` (from toolset \`${toolset}\`)` : '';
      if (toolset && RESERVED_TOOL_NAMES.includes(name))
        out.push(
          diagnostic(
            agent.file,
            agent.locate(['tools', i]),
            'reserved-name',
            `${reservedToolMessage(name)}${from}`,
          ),
        );
      else if (first && (toolset || first.toolset))
        out.push(
          diagnostic(
            agent.file,
            agent.locate(['tools', i]),
            'duplicate-tool',
            `agent \`${agent.name}\` gets two tools named \`${name}\` (entries ${first.entry + 1} and ${i + 1} of \`tools\`; toolset \`${toolset ?? first.toolset}\` gives one)`,
          ),
        );
      if (!first) seen.set(name, { entry: i, toolset });
    }
  });
  return out;
}

// What `run` refuses of an agent's `approval` once its toolsets' names are known: a rule or key
// naming a tool the agent does not have. Only for agents whose every tool is known now (a module's
// names are not) and that use a toolset (without one, the offline rule said it already).
function approvalNames(
  agent: SpecEntry<AgentSpec>,
  exposedTools: ReadonlyMap<string, string[]>,
  root: string,
  reported: (path: ReadonlyArray<string | number>) => boolean,
): Diagnostic[] {
  const refs = agent.spec.tools ?? [];
  if (!agent.spec.approval || !refs.some((ref) => typeof ref === 'object' && 'toolset' in ref)) return [];
  const names: string[] = [];
  for (const ref of refs) {
    if (typeof ref === 'string') names.push(ref);
    else if ('agent' in ref) names.push(ref.agent);
    else if ('builtin' in ref) names.push(...builtinNames(ref, root));
    else if ('toolset' in ref) {
      const exposed = exposedTools.get(ref.toolset);
      if (!exposed) return []; // not reached: its own error says why
      names.push(...exposed);
    } else return [];
  }
  const unknown = unknownApprovalTools(agent.spec.approval, names).filter((u) => !reported(u.path));
  return unknown.map((unknown) =>
    diagnostic(
      agent.file,
      agent.locate(unknown.path, { key: unknown.path.length === 3 && unknown.path[1] === 'tools' }),
      'approval-rule',
      unknown.message,
    ),
  );
}

// The tools a `- builtin:` entry gives with its options (`read_only` takes write_file away).
function builtinNames(ref: { builtin: string; options?: Record<string, unknown> }, root: string): string[] {
  const { builtin, options, ...inline } = ref;
  return builtinToolShapes(builtin, root, { ...options, ...inline }).map((tool) => tool.name);
}
