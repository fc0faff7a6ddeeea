import { type AnyTool, agentTool, RESERVED_TOOL_NAMES, reservedToolMessage } from '@agentctl/core';
import type { AgentDefinition } from '../definitions.js';
import { scrubbedTool } from '../env/scrubbed-tool.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { AgentSpec } from '../spec-types.js';
import { toolsOfModule } from '../tools/module-tool.js';
import { declareApprovalMode, toolsetApprovalMode } from './approval.js';
import { buildAgent } from './build-agent.js';
import type { Compiler } from './compiler.js';
import { markProjectCode } from './project-code.js';
import { guardStrayFailures } from './stray-failures.js';

// Where a module tool's code failing after its call ended is told: stderr, the project's secrets hidden.
function lateFailure(compiler: Compiler): (text: string) => void {
  return (text) => process.stderr.write(compiler.secrets.scrub(text));
}

async function namedTool(name: string, compiler: Compiler): Promise<AnyTool | undefined> {
  let pending = compiler.tools.get(name);
  if (!pending) {
    pending = (async () => {
      const entry = compiler.specs.tool.get(name);
      if (!entry) return undefined;
      const spec = compiler.definition('tool', entry);
      if (!spec) return undefined;
      const kind = spec.kind;
      const factory = compiler.registry.toolKinds.get(kind);
      if (!factory) {
        compiler.error(entry, [kind], 'unknown-tool-kind', `tool kind \`${kind}\` is not registered`, {
          key: true,
        });
        return undefined;
      }
      const made = await compiler.attempt(entry, [kind], 'tool', () =>
        factory(spec, compiler.factoryContext(entry)),
      );
      const capabilities = compiler.registry.describe('toolKind', kind)?.capabilities;
      const project = capabilities?.runsProjectCode === true;
      const guarded = made && project ? guardStrayFailures(made, lateFailure(compiler)) : made;
      const scrubbed = guarded && scrubbedTool(guarded, compiler.secrets);
      const tool = scrubbed && project ? markProjectCode(scrubbed) : scrubbed;
      // Tool kinds that reach outside the process (command, http) say so in their descriptor:
      // their tools ask first unless the YAML says not to.
      const asks = capabilities?.asksApproval === true;
      if (tool && tool.needsApproval === undefined && spec.needsApproval === undefined && asks)
        return { ...tool, needsApproval: true };
      return tool;
    })();
    compiler.tools.set(name, pending);
  }
  return pending;
}

async function toolset(name: string, compiler: Compiler): Promise<AnyTool[] | undefined> {
  let pending = compiler.toolsets.get(name);
  if (!pending) {
    pending = (async () => {
      const entry = compiler.specs.toolset.get(name);
      if (!entry) return undefined;
      const spec = compiler.definition('toolset', entry);
      if (!spec) return undefined;
      const factory = compiler.registry.toolsets.get('mcp');
      if (!factory) {
        compiler.error(
          entry,
          ['mcp'],
          'unknown-toolset-kind',
          'MCP toolsets are not available (no `mcp` toolset kind is registered)',
          { key: true },
        );
        return undefined;
      }
      const opened = await compiler.attempt(entry, ['mcp'], 'toolset', () =>
        factory(spec, compiler.factoryContext(entry)),
      );
      if (!opened) return undefined;
      compiler.disposers.push(() => opened.dispose());
      const tools = opened.tools.map((tool) => scrubbedTool(tool, compiler.secrets));
      for (const tool of tools) {
        const mode = toolsetApprovalMode(spec, tool.name);
        if (mode) declareApprovalMode(tool, mode);
      }
      return tools;
    })();
    compiler.toolsets.set(name, pending);
  }
  return pending;
}

/** The tools of an agent, made through the registry; each failure is a diagnostic at its entry. */
export async function resolveTools(
  agent: SpecEntry,
  spec: AgentDefinition,
  compiler: Compiler,
): Promise<AnyTool[] | undefined> {
  const out: AnyTool[] = [];
  let ok = true;
  for (const [i, ref] of spec.tools.entries()) {
    let made: AnyTool[] | undefined;
    if (ref.kind === 'tool') {
      const tool = await namedTool(ref.name, compiler);
      if (!compiler.specs.tool.has(ref.name))
        compiler.error(agent, ['tools', i], 'unresolved-reference', `tool \`${ref.name}\` is not defined`);
      made = tool ? [tool] : undefined;
    } else if (ref.kind === 'builtin') {
      const factory = compiler.registry.builtinTools.get(ref.name);
      if (!factory) {
        const known = [...compiler.registry.builtinTools.keys()].join(', ') || 'none registered';
        compiler.error(
          agent,
          ['tools', i, 'builtin'],
          'unknown-builtin',
          `built-in tool \`${ref.name}\` is not available (${known})`,
        );
      } else {
        const context = compiler.factoryContext(agent);
        const tool = await compiler.attempt(agent, ['tools', i], 'tool', () => {
          // `root` is a path like any other: relative to this file, confined to the project.
          const { root } = ref.options;
          const options =
            typeof root === 'string' ? { ...ref.options, root: context.resolvePath(root) } : ref.options;
          return factory(options, context);
        });
        made = tool ? [tool].flat().map((t) => scrubbedTool(t, compiler.secrets)) : undefined;
      }
    } else if (ref.kind === 'module') {
      const tools = await compiler.attempt(agent, ['tools', i, 'module'], 'tool', () =>
        toolsOfModule(ref.path, compiler.factoryContext(agent), ref.export),
      );
      made = tools?.map((tool) =>
        markProjectCode(scrubbedTool(guardStrayFailures(tool, lateFailure(compiler)), compiler.secrets)),
      );
    } else if (ref.kind === 'toolset') {
      made = await toolset(ref.name, compiler);
    } else {
      const target = compiler.specs.agent.get(ref.name) as SpecEntry<AgentSpec> | undefined;
      const built = target ? await buildAgent(target, compiler) : undefined;
      if (!target)
        compiler.error(
          agent,
          ['tools', i, 'agent'],
          'unresolved-reference',
          `agent \`${ref.name}\` is not defined`,
        );
      if (built) made = [agentTool(built)];
    }
    for (const tool of made ?? []) {
      if (!RESERVED_TOOL_NAMES.includes(tool.name)) continue;
      const from = ref.kind === 'toolset' ? ` (from toolset \`${ref.name}\`)` : '';
      compiler.error(agent, ['tools', i], 'reserved-name', `${reservedToolMessage(tool.name)}${from}`);
      ok = false;
    }
    if (made) out.push(...made);
    else ok = false;
  }
  const seen = new Map<string, number>();
  for (const tool of out) {
    if (seen.has(tool.name)) {
      compiler.error(
        agent,
        ['tools'],
        'duplicate-tool',
        `agent \`${agent.name}\` gets two tools named \`${tool.name}\``,
        { key: true },
      );
      ok = false;
    }
    seen.set(tool.name, 1);
  }
  return ok ? out : undefined;
}
