import { type AnyTool, agentTool, defaultNeedsApproval } from '@agentctl/core';
import { scrubbedTool } from '../env/scrubbed-tool.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { AgentSpec, ToolsetSpec } from '../spec-types.js';
import { toolsOfModule } from '../tools/module-tool.js';
import { declareApprovalMode, toolsetApprovalMode } from './approval.js';
import { buildAgent } from './build-agent.js';
import { builtinOptions } from './builtin-options.js';
import type { Compiler } from './compiler.js';

const TOOL_KINDS = ['module', 'http', 'command'] as const;

async function namedTool(name: string, compiler: Compiler): Promise<AnyTool | undefined> {
  let pending = compiler.tools.get(name);
  if (!pending) {
    pending = (async () => {
      const entry = compiler.specs.tool.get(name);
      if (!entry) return undefined;
      const spec = compiler.resolved(entry);
      if (!spec) return undefined;
      const kind = TOOL_KINDS.find((k) => spec[k] !== undefined) ?? 'module';
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
      const tool = made && scrubbedTool(made, compiler.secrets);
      // Command and HTTP tools reach outside the process: they ask first unless the YAML says not to.
      if (
        tool &&
        tool.needsApproval === undefined &&
        spec.needs_approval === undefined &&
        defaultNeedsApproval(kind)
      )
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
      const entry = compiler.specs.toolset.get(name) as SpecEntry<ToolsetSpec> | undefined;
      if (!entry) return undefined;
      const spec = compiler.resolved(entry);
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
  agent: SpecEntry<AgentSpec>,
  spec: AgentSpec,
  compiler: Compiler,
): Promise<AnyTool[] | undefined> {
  const out: AnyTool[] = [];
  let ok = true;
  for (const [i, ref] of (spec.tools ?? []).entries()) {
    let made: AnyTool[] | undefined;
    if (typeof ref === 'string') {
      const tool = await namedTool(ref, compiler);
      if (!compiler.specs.tool.has(ref))
        compiler.error(agent, ['tools', i], 'unresolved-reference', `tool \`${ref}\` is not defined`);
      made = tool ? [tool] : undefined;
    } else if ('builtin' in ref) {
      const factory = compiler.registry.builtinTools.get(ref.builtin);
      if (!factory) {
        const known = [...compiler.registry.builtinTools.keys()].join(', ') || 'none registered';
        compiler.error(
          agent,
          ['tools', i, 'builtin'],
          'unknown-builtin',
          `built-in tool \`${ref.builtin}\` is not available (${known})`,
        );
      } else {
        const context = compiler.factoryContext(agent);
        const tool = await compiler.attempt(agent, ['tools', i], 'tool', () =>
          factory(builtinOptions(ref, context), context),
        );
        made = tool ? [tool].flat().map((t) => scrubbedTool(t, compiler.secrets)) : undefined;
      }
    } else if ('module' in ref) {
      const tools = await compiler.attempt(agent, ['tools', i, 'module'], 'tool', () =>
        toolsOfModule(ref.module, compiler.factoryContext(agent), ref.export),
      );
      made = tools?.map((tool) => scrubbedTool(tool, compiler.secrets));
    } else if ('toolset' in ref) {
      made = await toolset(ref.toolset, compiler);
    } else if ('agent' in ref) {
      const target = compiler.specs.agent.get(ref.agent) as SpecEntry<AgentSpec> | undefined;
      const built = target ? await buildAgent(target, compiler) : undefined;
      if (!target)
        compiler.error(
          agent,
          ['tools', i, 'agent'],
          'unresolved-reference',
          `agent \`${ref.agent}\` is not defined`,
        );
      if (built) made = [agentTool(built)];
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
