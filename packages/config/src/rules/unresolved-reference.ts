import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { envInName } from '../env/env-in-name.js';
import { didYouMean } from '../load/did-you-mean.js';
import { indexEntries, type ProjectSpecs } from '../load/project-specs.js';
import type { MemorySpec, MiddlewareSpec, ScheduleSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { modelRef } from './model-ref.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';
import { undefinedModelMessage } from './undefined-model.js';

type RefKind = 'model' | 'tool' | 'toolset' | 'middleware' | 'memory' | 'agent';

function missing(
  specs: ProjectSpecs,
  kind: RefKind,
  name: string,
  registered?: readonly string[],
  /** A name never suggested: the agent whose own list this is (it cannot be its own sub-agent). */
  self?: string,
): string | undefined {
  if (specs[kind].has(name) || registered?.includes(name)) return undefined;
  // Without a registry, a name no document defines may still be a plugin's: not known here.
  if ((kind === 'middleware' || kind === 'memory') && registered === undefined) return undefined;
  const known = [...specs[kind].keys(), ...(registered ?? [])].filter((known) => known !== self);
  const near = didYouMean(name, known);
  // With nothing near to suggest, say where a definition would go.
  const define = near || (DEFINED_BY_DOCUMENT.has(kind) ? `: define it in a \`kind: ${kind}\` document` : '');
  if (envInName(name)) return `${kind} \`${excerpt(name)}\` is not defined${envInName(name)}`;
  return `${kind} \`${excerpt(name)}\` is not defined${define}`;
}

// What only a document of the project defines (middleware and memory may be a plugin's).
const DEFINED_BY_DOCUMENT: ReadonlySet<RefKind> = new Set(['tool', 'toolset', 'agent']);

// A built-in tool named bare, as a `kind: tool` is, is the usual slip: say how to write it.
// So is an agent or a toolset named bare, as a tool: each is written with its own key.
function missingTool(specs: ProjectSpecs, name: string, builtins: readonly string[]): string | undefined {
  if (specs.tool.has(name)) return undefined;
  const shown = excerpt(name);
  if (specs.agent.has(name))
    return `tool \`${shown}\` is not defined, but an agent is: call it as a tool with \`{ agent: ${shown} }\`, or hand the conversation to it with \`sub_agents: [${shown}]\``;
  if (specs.toolset.has(name))
    return `tool \`${shown}\` is not defined, but a toolset is: give the agent its tools with \`{ toolset: ${shown} }\``;
  if (builtins.includes(name))
    return `tool \`${shown}\` is not defined; did you mean the built-in tool \`{ builtin: ${shown} }\`?`;
  return missing(specs, 'tool', name);
}

function missingModel(specs: ProjectSpecs, name: string): string | undefined {
  return specs.model.has(name) ? undefined : undefinedModelMessage(name, specs.model.keys());
}

/**
 * Every name an agent (or the project's defaults) uses refers to something that exists, as
 * `validate` and `test` read the project and as `run` does: a name in a file `run` reads that only
 * a test file defines resolves for the first two, and `run` refuses it.
 */
export function unresolvedReference(ctx: RuleContext): Diagnostic[] {
  const found = references(ctx);
  const testOnly = ctx.testOnlyFiles;
  if (!testOnly || testOnly.size === 0) return found;
  const entries = ctx.entries.filter((entry) => !testOnly.has(entry.absFile));
  if (entries.length === ctx.entries.length) return found;
  const key = (d: Diagnostic) => `${d.file}:${d.line}:${d.col}:${d.message}`;
  const said = new Set(found.map(key));
  const forRun = references({ ...ctx, entries, specs: indexEntries(entries) })
    .filter((d) => !said.has(key(d)))
    .map((d) => ({
      ...d,
      message: `${d.message}; only a test file defines it, and \`run\` reads no test file: move it to a file \`include\` matches`,
    }));
  return [...found, ...forRun];
}

function references(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  // The range is found only for a problem: locating every reference costs more than checking it.
  const report = (file: string, range: () => SourceRange, message: string | undefined) => {
    if (message) out.push(diagnostic(file, range(), 'unresolved-reference', message));
  };
  const { specs } = ctx;
  const middlewareNames = ctx.registry?.names('middleware');
  const memoryNames = ctx.registry?.names('memory');
  const builtinTools = ctx.registry?.names('builtinTool') ?? [];
  for (const agent of validAgents(ctx)) {
    const spec = agent.spec;
    const at =
      (...path: Array<string | number>) =>
      () =>
        agent.locate(path);
    // Like compile: only `provider/model` with a provider before the slash is inline (`/echo` is not).
    const model = modelRef(spec.model, ctx.env);
    if (model && model.ref.indexOf('/') <= 0) {
      const message = missingModel(specs, model.ref);
      report(agent.file, at('model'), message && model.told(message));
    }
    if (spec.memory !== undefined)
      report(agent.file, at('memory'), missing(specs, 'memory', spec.memory, memoryNames));
    spec.tools?.forEach((tool, i) => {
      if (typeof tool === 'string')
        report(agent.file, at('tools', i), missingTool(specs, tool, builtinTools));
      else if ('toolset' in tool)
        report(agent.file, at('tools', i, 'toolset'), missing(specs, 'toolset', tool.toolset));
      else if ('agent' in tool)
        report(
          agent.file,
          at('tools', i, 'agent'),
          missing(specs, 'agent', tool.agent, undefined, spec.name),
        );
    });
    spec.sub_agents?.forEach((sub, i) => {
      if (typeof sub === 'string')
        report(agent.file, at('sub_agents', i), missing(specs, 'agent', sub, undefined, spec.name));
    });
    spec.middleware?.forEach((entry, i) => {
      if (typeof entry === 'string')
        report(agent.file, at('middleware', i), missing(specs, 'middleware', entry, middlewareNames));
      else {
        const name = Object.keys(entry)[0];
        report(
          agent.file,
          () => agent.locate(['middleware', i, name], { key: true }),
          missing(specs, 'middleware', name, middlewareNames),
        );
      }
    });
  }
  for (const mw of validEntries<MiddlewareSpec>(ctx, 'middleware')) {
    const name = mw.spec.builtin;
    if (name !== undefined && middlewareNames && !middlewareNames.includes(name))
      report(
        mw.file,
        () => mw.locate(['builtin']),
        `built-in middleware \`${excerpt(name)}\` is not registered${didYouMean(name, middlewareNames)} (registered: ${middlewareNames.join(', ')})`,
      );
  }
  for (const schedule of validEntries<ScheduleSpec>(ctx, 'schedule'))
    report(schedule.file, () => schedule.locate(['agent']), missing(specs, 'agent', schedule.spec.agent));
  for (const memory of validEntries<MemorySpec>(ctx, 'memory')) {
    const backend = memory.spec.backend;
    if (backend !== undefined && memoryNames && !memoryNames.includes(backend))
      report(
        memory.file,
        () => memory.locate(['backend']),
        `memory backend \`${excerpt(backend)}\` is not registered${didYouMean(backend, memoryNames)} (registered: ${memoryNames.join(', ')})`,
      );
  }
  const project = specs.project;
  if (project) {
    const defaults = (project.spec as { defaults?: { model?: string; memory?: string } }).defaults;
    const model = modelRef(defaults?.model, ctx.env);
    if (model?.ref && model.ref.indexOf('/') <= 0) {
      const message = missingModel(specs, model.ref);
      report(project.file, () => project.locate(['defaults', 'model']), message && model.told(message));
    }
    if (defaults?.memory)
      report(
        project.file,
        () => project.locate(['defaults', 'memory']),
        missing(specs, 'memory', defaults.memory, memoryNames),
      );
  }
  return out;
}
