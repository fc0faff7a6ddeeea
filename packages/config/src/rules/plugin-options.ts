import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { nearest } from '../load/did-you-mean.js';
import type { IndexedEntry } from '../load/index-documents.js';
import { DEFAULT_MEMORY_BACKEND } from '../normalise/normalise-memory.js';
import type { PluginKind } from '../registry.js';
import type { MemorySpec, MiddlewareSpec, ModelSpec, ToolSpec } from '../spec-types.js';
import { checkOptions } from './check-options.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

// Options users set before they were model fields: an unknown option near one says where it went.
const MODEL_FIELDS: Readonly<Record<string, string>> = {
  reasoning_effort: '`reasoning: { effort }`',
  thinking: '`reasoning: { budget_tokens }`',
  parallel_tool_calls: '`parallel_tool_calls`',
};

// How a problem names the plugin it belongs to.
const PREFIX: Readonly<Record<PluginKind, string>> = {
  provider: 'provider ',
  middleware: '',
  memory: 'backend ',
  toolset: 'toolset ',
  toolKind: 'tool kind ',
  builtinTool: 'built-in ',
};

function movedHint(kind: PluginKind, message: string): string {
  const key = kind === 'provider' ? /^unknown option `([^`]+)`/.exec(message)?.[1] : undefined;
  const near = key === undefined ? undefined : nearest(key, Object.keys(MODEL_FIELDS));
  return near ? `; set ${MODEL_FIELDS[near]} on the model instead` : '';
}

/**
 * Options written for a plugin match the schema and rules it registered: a model's `options:`
 * against its provider, a middleware's options against the middleware, a memory's against its
 * backend, a built-in tool's (inline keys and `options:`) against the built-in. `extra_body` is
 * the one key a provider's options schema must list to let unchecked values through.
 */
export function pluginOptions(ctx: RuleContext): Diagnostic[] {
  const registry = ctx.registry;
  if (!registry) return [];
  const out: Diagnostic[] = [];
  const check = (
    kind: PluginKind,
    name: string,
    options: unknown,
    entry: IndexedEntry,
    at: Array<string | number> | ((path: Array<string | number>) => Array<string | number>),
  ) => {
    const descriptor = registry.describe(kind, name);
    if (!descriptor || typeof options !== 'object' || options === null) return;
    for (const problem of checkOptions(
      options as Record<string, unknown>,
      descriptor.schema,
      descriptor.rules,
      ctx.optionChecks,
    )) {
      const where = typeof at === 'function' ? at(problem.path) : [...at, ...problem.path];
      out.push(
        diagnostic(
          entry.file,
          entry.locate(where, { key: problem.key ?? problem.message.startsWith('unknown option') }),
          'plugin-options',
          `${PREFIX[kind]}${name}: ${problem.message}${movedHint(kind, problem.message)}`,
          problem.severity,
        ),
      );
    }
  };
  for (const model of validEntries<ModelSpec>(ctx, 'model'))
    if (model.spec.options) check('provider', model.spec.provider, model.spec.options, model, ['options']);
  for (const mw of validEntries<MiddlewareSpec>(ctx, 'middleware'))
    if (mw.spec.builtin && mw.spec.options)
      check('middleware', mw.spec.builtin, mw.spec.options, mw, ['options']);
  for (const memory of validEntries<MemorySpec>(ctx, 'memory'))
    if (memory.spec.options)
      check('memory', memory.spec.backend ?? DEFAULT_MEMORY_BACKEND, memory.spec.options, memory, [
        'options',
      ]);
  // A tool kind's section (`http:`, `command:`...) against the rules that kind registered.
  const toolKinds = registry.names('toolKind');
  for (const tool of validEntries<ToolSpec>(ctx, 'tool'))
    for (const kind of toolKinds) {
      const section = (tool.spec as unknown as Record<string, unknown>)[kind];
      if (section !== undefined) check('toolKind', kind, section, tool, [kind]);
    }
  for (const agent of validAgents(ctx)) {
    agent.spec.tools?.forEach((tool, i) => {
      if (typeof tool !== 'object' || !('builtin' in tool)) return;
      // Inline keys and `options:` are one set of options; each problem points where it was written.
      const { builtin, options, ...inline } = tool;
      check('builtinTool', builtin, { ...options, ...inline }, agent, (path) =>
        path.length > 0 && String(path[0]) in inline
          ? ['tools', i, ...path]
          : ['tools', i, 'options', ...path],
      );
    });
    agent.spec.middleware?.forEach((ref, i) => {
      if (typeof ref === 'string') return;
      const name = Object.keys(ref)[0];
      // A middleware document's options merge with these; its own are checked above.
      if (ctx.specs.middleware.has(name)) return;
      check('middleware', name, ref[name], agent, ['middleware', i, name]);
    });
  }
  return out;
}
