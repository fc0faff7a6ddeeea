import type { Diagnostic, SourceRange } from '../diagnostic.js';
import { displayPath } from '../paths.js';
import type { AgentSpec, ProjectSpec } from '../spec-types.js';
import type { LoadedProject } from './load-project.js';
import type { SpecEntry } from './project-specs.js';

/** Every entry one agent's tree reaches: agents, models, tools, toolsets, middleware, memories. */
export function agentReach(
  project: LoadedProject,
  agentName: string,
  modelOverride?: string,
): Set<SpecEntry> {
  const { specs } = project;
  const reached = new Set<SpecEntry>();
  const defaults = (specs.project?.spec as ProjectSpec | undefined)?.defaults;
  const add = (entry: SpecEntry | undefined): boolean => {
    if (!entry || reached.has(entry)) return false;
    reached.add(entry);
    return true;
  };
  // A reference written with `${VAR}` names whichever model the environment gives (rules/model-ref):
  // every model may be the one reached, so none of their errors is called unused.
  const model = (name: string | undefined) => {
    if (name?.includes('${')) for (const entry of specs.model.values()) add(entry);
    else add(name === undefined ? undefined : specs.model.get(name));
  };
  const memory = (name: string | undefined) => add(name === undefined ? undefined : specs.memory.get(name));
  if (specs.project) add(specs.project);
  model(modelOverride ?? defaults?.model);
  memory(defaults?.memory);
  const pending = [agentName];
  // A document that failed the schema is still indexed, so any field may hold any shape here.
  const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const nameOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  while (pending.length > 0) {
    const entry = specs.agent.get(pending.pop() as string) as SpecEntry<AgentSpec> | undefined;
    if (!add(entry) || !entry) continue;
    const spec = entry.spec as unknown as Record<string, unknown>;
    if (entry.parent !== undefined) pending.push(entry.parent); // its file position is its parent's
    if (!modelOverride) model(nameOf(spec.model));
    memory(nameOf(spec.memory));
    for (const sub of listOf(spec.sub_agents)) {
      const name = isRecord(sub) ? nameOf(sub.name) : nameOf(sub);
      if (name !== undefined) pending.push(name);
    }
    for (const tool of listOf(spec.tools)) {
      if (typeof tool === 'string') add(specs.tool.get(tool));
      else if (!isRecord(tool)) continue;
      else if (typeof tool.toolset === 'string') add(specs.toolset.get(tool.toolset));
      else if (typeof tool.agent === 'string') pending.push(tool.agent);
    }
    for (const mw of listOf(spec.middleware)) {
      const name = isRecord(mw) ? Object.keys(mw)[0] : nameOf(mw);
      if (name !== undefined) add(specs.middleware.get(name));
    }
  }
  return reached;
}

function contains(outer: SourceRange, d: Diagnostic): boolean {
  const start = outer.line * 1e6 + outer.col;
  const end = outer.endLine * 1e6 + outer.endCol;
  const at = d.line * 1e6 + d.col;
  return at >= start && at <= end;
}

/**
 * The project's diagnostics as `run AGENT` treats them: an error inside a document AGENT's tree
 * does not reach (another agent, an unused model, a file that does not parse) becomes a warning
 * saying so; errors in what it reaches, in agentctl.yaml, and anywhere when AGENT does not exist
 * stay errors.
 */
export function scopeDiagnostics(
  project: LoadedProject,
  agentName: string,
  modelOverride?: string,
): Diagnostic[] {
  if (!project.specs.agent.has(agentName)) return project.diagnostics;
  const reached = agentReach(project, agentName, modelOverride);
  // By kind and name, so a second document defining a name AGENT reaches counts as reached: which
  // of the two was meant is exactly what the unique-names error asks.
  const reachedNames = new Set([...reached].map((entry) => `${entry.kind}\0${entry.name}`));
  const documents = project.entries.filter((entry) => entry.kind !== 'project');
  // By the file, not its `kind: project` document: an agentctl.yaml that does not parse has none.
  const projectFile = project.configFile && displayPath(project.root, project.configFile);
  // Each document's range found once and kept by file: found per diagnostic, a file of thousands
  // of documents with a problem each took minutes to start a run.
  const byFile = new Map<string, Array<{ entry: SpecEntry; range: SourceRange }>>();
  for (const entry of documents) {
    const list = byFile.get(entry.file) ?? [];
    if (list.length === 0) byFile.set(entry.file, list);
    list.push({ entry, range: entry.locate([]) });
  }
  const ownersOf = (d: Diagnostic) =>
    (byFile.get(d.file) ?? []).filter(({ range }) => contains(range, d)).map(({ entry }) => entry);
  const blocks = (d: Diagnostic, owners: readonly SpecEntry[]) =>
    d.severity === 'error' &&
    (d.file === projectFile || owners.some((entry) => reachedNames.has(`${entry.kind}\0${entry.name}`)));
  // A document that does not parse, or has no known kind, may be the definition AGENT needs: then
  // AGENT's reference to it is an unresolved-reference error in a document it reaches, which
  // blocks, and the broken document is kept an error beside it, not called unused.
  const unresolved = project.diagnostics.some(
    (d) => d.rule === 'unresolved-reference' && blocks(d, ownersOf(d)),
  );
  return project.diagnostics.map((d) => {
    if (d.severity !== 'error' || d.file === projectFile) return d;
    const owners = ownersOf(d);
    if (blocks(d, owners) || (unresolved && owners.length === 0)) return d;
    return {
      ...d,
      severity: 'warning',
      message: `${d.message} (not used by \`${agentName}\`, so not blocking it)`,
    };
  });
}
