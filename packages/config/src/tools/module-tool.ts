import type { AnyTool } from '@agentctl/core';
import type { ToolDefinition } from '../definitions.js';
import type { FactoryContext } from '../registry.js';

/** Whether a module export looks like a tool made with defineTool(). */
export function isTool(value: unknown): value is AnyTool {
  if (value === null || typeof value !== 'object') return false;
  const tool = value as Record<string, unknown>;
  return typeof tool.name === 'string' && typeof tool.execute === 'function';
}

/** The tools a module exports: `exportName` only, or else every exported tool. */
export async function toolsOfModule(
  path: string,
  ctx: FactoryContext,
  exportName?: string,
): Promise<AnyTool[]> {
  const mod = await ctx.importModule(ctx.resolvePath(path));
  if (exportName !== undefined) {
    const value = mod[exportName];
    if (!isTool(value)) throw new Error(`module ${path} has no tool exported as \`${exportName}\``);
    return [value];
  }
  const tools = [...new Set(Object.values(mod).filter(isTool))];
  if (tools.length === 0) throw new Error(`module ${path} exports no tool (make one with defineTool())`);
  return tools;
}

/** A `kind: tool` with `module`: the module's tool, with name and settings from the YAML. */
export async function moduleTool(spec: ToolDefinition, ctx: FactoryContext): Promise<AnyTool> {
  const module = spec.module as NonNullable<ToolDefinition['module']>;
  const mod = await ctx.importModule(ctx.resolvePath(module.path));
  let tool: unknown;
  if (module.export !== undefined) tool = mod[module.export];
  else if (isTool(mod.default)) tool = mod.default;
  else {
    const tools = [...new Set(Object.values(mod).filter(isTool))];
    tool = tools.length === 1 ? tools[0] : tools.find((t) => t.name === spec.name);
  }
  if (!isTool(tool)) {
    const which = module.export ? `\`${module.export}\`` : 'a default export or a single tool';
    throw new Error(`module ${module.path} has no tool as ${which}`);
  }
  return {
    ...tool,
    name: spec.name,
    description: spec.description ?? tool.description,
    parameters: spec.parameters ?? tool.parameters ?? { type: 'object', properties: {} },
    needsApproval: spec.needsApproval ?? tool.needsApproval,
    idempotent: spec.idempotent ?? tool.idempotent,
    timeout: spec.timeoutMs ?? tool.timeout,
  };
}
