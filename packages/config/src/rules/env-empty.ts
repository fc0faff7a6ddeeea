import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { interpolate, MissingEnvError } from '../env/interpolate.js';
import type { IndexedEntry } from '../load/index-documents.js';
import type { MemorySpec, ModelSpec, ToolSpec, ToolsetSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/**
 * A field that needs a value and gets it from `${VAR}` is not empty once resolved with this
 * environment (`url: ${MCP_URL:-}` with MCP_URL unset): run would refuse it, or (a model's
 * `base_url`) quietly use another server, so validate refuses it as it refuses `base_url: ""`.
 * A memory server's url is a warning: it holds the database's password, a secret that validate
 * in CI is not meant to need, but run, serve and worker refuse it empty all the same.
 */
export function envEmpty(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const check = (
    entry: IndexedEntry,
    path: Array<string | number>,
    written: unknown,
    what: string,
    severity: 'error' | 'warning' = 'error',
  ) => {
    if (typeof written !== 'string' || !written.includes('${')) return;
    let value: string;
    try {
      value = interpolate(written, ctx.env);
    } catch (error) {
      if (error instanceof MissingEnvError) return; // env-required reports it
      throw error;
    }
    if (value.trim() !== '') return;
    out.push(
      diagnostic(
        entry.file,
        entry.locate(path),
        'env-empty',
        `${what} \`${excerpt(written)}\` is empty with this environment; set the variable or give a non-empty default${severity === 'warning' ? ' (run, serve and worker refuse it empty)' : ''}`,
        severity,
      ),
    );
  };
  for (const set of validEntries<ToolsetSpec>(ctx, 'toolset')) {
    const mcp = set.spec.mcp as { url?: unknown; command?: unknown };
    check(set, ['mcp', 'url'], mcp.url, 'the MCP server url');
    check(set, ['mcp', 'command'], mcp.command, 'the MCP server command');
  }
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    check(tool, ['http', 'url'], tool.spec.http?.url, 'the url');
    check(tool, ['command', 'argv', 0], tool.spec.command?.argv[0], 'the command');
  }
  for (const memory of validEntries<MemorySpec>(ctx, 'memory')) {
    check(memory, ['url'], memory.spec.url, `memory \`${memory.name}\`'s url`, 'warning');
  }
  // Empty, a model's base_url would send the request, and its key, to the provider's own endpoint.
  for (const model of validEntries<ModelSpec>(ctx, 'model'))
    check(model, ['base_url'], model.spec.base_url, 'the base_url');
  for (const agent of validAgents(ctx))
    check(agent, ['url'], (agent.spec as { url?: unknown }).url, 'the url');
  return out;
}
