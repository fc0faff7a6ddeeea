import type { AnyTool } from '@agentctl/core';
import { deadline } from '@agentctl/core';
import { withoutModuleLoader } from '../compile/import-module.js';
import { isStrayedElsewhere, StrayFailureError } from '../compile/stray-failures.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { referencedSecrets } from '../env/referenced-secrets.js';
import type { Secrets } from '../env/secrets.js';
import { normaliseOptions } from '../normalise/normalise-options.js';
import { displayPath, resolveProjectPath } from '../paths.js';
import { excerpt } from '../rules/excerpt.js';
import type { AgentSpec, MiddlewareSpec, ToolSpec } from '../spec-types.js';
import { chosenModuleTool, isTool, parametersProblem } from '../tools/module-tool.js';
import { ModuleHost } from '../watch/module-host.js';
import { ModuleLoadTimeout, moduleLoadLimitMs } from '../watch/module-load-limit.js';
import type { IndexedEntry } from './index-documents.js';

/** What the YAML says a module must export. */
interface ModuleUse {
  entry: IndexedEntry;
  path: Array<string | number>;
  written: string;
  exportName?: string;
  expects: 'tools' | 'tool' | 'middleware';
  /** For a middleware: the options each use gives its factory (the document's, under an agent's own). */
  optionSets?: Array<Record<string, unknown>>;
}

function usesOf(entries: readonly IndexedEntry[]): ModuleUse[] {
  const uses: ModuleUse[] = [];
  for (const entry of entries) {
    if (!entry.valid) continue;
    if (entry.kind === 'tool') {
      const module = (entry.spec as ToolSpec).module;
      if (module)
        uses.push({
          entry,
          path: ['module', 'path'],
          written: module.path,
          exportName: module.export,
          expects: 'tool',
        });
    } else if (entry.kind === 'middleware') {
      const spec = entry.spec as MiddlewareSpec;
      if (spec.module)
        uses.push({
          entry,
          path: ['module'],
          written: spec.module,
          exportName: spec.export ?? 'default',
          expects: 'middleware',
          optionSets: factoryOptions(entry, entries),
        });
    } else if (entry.kind === 'agent') {
      (entry.spec as AgentSpec).tools?.forEach((tool, i) => {
        if (typeof tool === 'object' && 'module' in tool)
          uses.push({
            entry,
            path: ['tools', i, 'module'],
            written: tool.module,
            exportName: tool.export,
            expects: 'tools',
          });
      });
    }
  }
  return uses;
}

// The options compile gives a module middleware's factory, once per agent using it (the document's
// options under the agent's own), or the document's alone when no agent does. Options holding a
// `${VAR}` are left out: validate has no secrets to resolve them with.
function factoryOptions(doc: IndexedEntry, entries: readonly IndexedEntry[]): Array<Record<string, unknown>> {
  const own = normaliseOptions((doc.spec as MiddlewareSpec).options, undefined);
  const sets: Array<Record<string, unknown>> = [];
  for (const agent of entries) {
    if (agent.kind !== 'agent' || !agent.valid) continue;
    for (const ref of (agent.spec as AgentSpec).middleware ?? []) {
      if (typeof ref === 'string') {
        if (ref === doc.name) sets.push(own);
      } else if (Object.hasOwn(ref, doc.name)) {
        sets.push({
          ...own,
          ...normaliseOptions((ref as Record<string, Record<string, unknown>>)[doc.name], undefined),
        });
      }
    }
  }
  if (sets.length === 0) sets.push(own);
  const unique = new Map(sets.map((set) => [JSON.stringify(set), set]));
  return [...unique.entries()].filter(([text]) => !text.includes('${')).map(([, set]) => set);
}

// What a middleware factory does with the options compile will give it: run in the worker, as
// compile would run it in the process; a throw, or anything but a function back, fails every run.
async function factoryProblem(use: ModuleUse, mod: Record<string, unknown>): Promise<string | undefined> {
  const name = use.exportName ?? 'default';
  const factory = mod[name] as (...args: unknown[]) => unknown;
  if (factory.length >= 2) return undefined; // a middleware itself, not a factory of one
  const what = `the middleware factory \`${name}\` of ${excerpt(use.written)}`;
  for (const options of use.optionSets ?? []) {
    const limit = deadline(
      undefined,
      moduleLoadLimitMs(),
      () => new ModuleLoadTimeout(moduleLoadLimitMs(), what),
    );
    try {
      await limit.race(Promise.resolve(factory(options)));
    } catch (error) {
      if (error instanceof ModuleLoadTimeout) throw error;
      const message = excerpt((error as Error).message ?? String(error), 300);
      return /did not return a middleware function/.test(message)
        ? `${what} did not return a middleware function (it must return \`async (action, next) => ...\`)`
        : `${what} failed with ${JSON.stringify(options) === '{}' ? 'no options' : 'its options'}: ${message}`;
    } finally {
      limit.dispose();
    }
  }
  return undefined;
}

function problemOf(use: ModuleUse, mod: Record<string, unknown>): string | undefined {
  const shown = excerpt(use.written);
  if (use.expects === 'middleware') {
    const name = use.exportName ?? 'default';
    return typeof mod[name] === 'function'
      ? undefined
      : `module ${shown} has no function exported as \`${name}\``;
  }
  if (use.exportName !== undefined && !isTool(mod[use.exportName]))
    return `module ${shown} has no tool exported as \`${use.exportName}\``;
  const tools = Object.values(mod).filter(isTool);
  if (tools.length === 0) return `module ${shown} exports no tool (make one with defineTool())`;
  if (use.expects === 'tool') {
    const spec = use.entry.spec as ToolSpec;
    const tool = chosenModuleTool(mod, spec);
    if (!isTool(tool))
      return `module ${shown} exports ${tools.length} tools and none is named \`${spec.name}\`; set \`module.export\``;
    // The YAML's parameters, when given, replace the module's.
    return spec.parameters === undefined ? parametersProblem(shown, tool) : undefined;
  }
  const used = use.exportName !== undefined ? [mod[use.exportName] as AnyTool] : tools;
  for (const tool of used) {
    const problem = parametersProblem(shown, tool);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Imports every module tool and middleware the project names, in a worker that is stopped
 * afterwards, and checks each exports what the YAML says. Modules that do not resolve inside the
 * project are left to the path rules. Returns the tool names each agent's module entries give.
 */
export async function checkModules(
  root: string,
  entries: readonly IndexedEntry[],
  env: Env = {},
): Promise<{ diagnostics: Diagnostic[]; toolNames: Map<IndexedEntry, Map<number, string[]>> }> {
  const diagnostics: Diagnostic[] = [];
  const toolNames = new Map<IndexedEntry, Map<number, string[]>>();
  const uses = usesOf(entries).filter((use) => {
    const resolved = resolveProjectPath(root, use.entry.absFile, use.written);
    return resolved.exists && !resolved.escapes && /\.(m|c)?(t|j)s$/.test(use.written);
  });
  if (uses.length === 0) return { diagnostics, toolNames };
  // A module's error may quote what it read from the environment, as a run's warning would hide it.
  const secrets = referencedSecrets(entries, env);
  let host = withoutModuleLoader(() => new ModuleHost());
  // Where a module is first named: its top-level code's late failures are told there.
  const named = new Map<string, ModuleUse>();
  try {
    for (const use of uses) {
      const absolute = resolveProjectPath(root, use.entry.absFile, use.written).absolute;
      if (!named.has(absolute)) named.set(absolute, use);
      let message: string | undefined;
      try {
        const mod = await host.importModuleWithin(absolute);
        message = problemOf(use, mod);
        if (!message && use.expects === 'middleware') message = await factoryProblem(use, mod);
        if (!message && use.expects === 'tools') {
          const names =
            use.exportName !== undefined
              ? [(mod[use.exportName] as { name: string }).name]
              : [
                  ...new Set(
                    Object.values(mod)
                      .filter(isTool)
                      .map((t) => t.name),
                  ),
                ];
          const byIndex = toolNames.get(use.entry) ?? new Map<number, string[]>();
          toolNames.set(use.entry, byIndex);
          byIndex.set(use.path[1] as number, names);
        }
      } catch (error) {
        // Worded as `run` words it (the compiler's guarded import).
        const text = isStrayedElsewhere(error)
          ? new StrayFailureError(`the module ${displayPath(root, absolute)}`, error).message
          : ((error as Error).message ?? String(error));
        message = `module ${excerpt(use.written)} failed to load: ${excerpt(secrets.scrub(text), 300)}`;
        // The host gave up its worker, which may be stuck in the module's code: the next module gets a new one.
        if (error instanceof ModuleLoadTimeout) host = withoutModuleLoader(() => new ModuleHost());
      }
      if (message)
        diagnostics.push(diagnostic(use.entry.file, use.entry.locate(use.path), 'module-exports', message));
    }
    diagnostics.push(...(await lateWarnings(host, named, secrets)));
  } finally {
    await host.dispose();
  }
  return { diagnostics, toolNames };
}

// What the modules' code failed after it was imported (a timer of its top-level code), as `run`
// warns of it on stderr: warnings at the YAML naming each module. A worker that does not answer
// (held by module code) has already failed its import, and is not waited for.
async function lateWarnings(
  host: ModuleHost,
  named: ReadonlyMap<string, ModuleUse>,
  secrets: Secrets,
): Promise<Diagnostic[]> {
  const limit = deadline(undefined, moduleLoadLimitMs(), () => new Error('the module worker did not answer'));
  try {
    const late = await limit.race(host.lateFailures()).catch(() => []);
    const out: Diagnostic[] = [];
    for (const failure of late) {
      const use = failure.module !== undefined ? named.get(failure.module) : undefined;
      if (use)
        out.push(
          diagnostic(
            use.entry.file,
            use.entry.locate(use.path),
            'module-exports',
            secrets.scrub(failure.text),
            'warning',
          ),
        );
    }
    return out;
  } finally {
    limit.dispose();
  }
}
