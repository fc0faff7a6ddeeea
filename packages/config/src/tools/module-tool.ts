import type { AnyTool } from '@agentctl/core';
import type { ToolDefinition } from '../definitions.js';
import { jsonSchemaProblem } from '../load/json-schema-problem.js';
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
    throwOnParametersProblem(path, value);
    return [withParameters(value)];
  }
  const tools = [...new Set(Object.values(mod).filter(isTool))];
  if (tools.length === 0) throw new Error(`module ${path} exports no tool (make one with defineTool())`);
  for (const tool of tools) throwOnParametersProblem(path, tool);
  return tools.map(withParameters);
}

// A tool that declares no parameters takes none, as a `kind: tool` naming it does: without a
// schema, its first call failed as agentctl's own error (INTERNAL_ERROR) though `validate` passed.
function withParameters(tool: AnyTool): AnyTool {
  return tool.parameters === undefined ? { ...tool, parameters: { type: 'object', properties: {} } } : tool;
}

/**
 * Why a module tool's parameters are not a JSON Schema (every call of it would fail), or undefined;
 * `validate` and the compiler both ask, so a project `validate` passes compiles.
 */
export function parametersProblem(path: string, tool: AnyTool): string | undefined {
  if (tool.parameters === undefined) return undefined;
  const problem = jsonSchemaProblem(tool.parameters);
  return (
    problem &&
    `module ${path}: the parameters of tool \`${tool.name}\` are not a valid JSON Schema: ${problem}`
  );
}

function throwOnParametersProblem(path: string, tool: AnyTool): void {
  const problem = parametersProblem(path, tool);
  if (problem) throw new Error(problem);
}

/** The tool a `kind: tool` with `module` names: its export, the default, the only one, or the one of its name. */
export function chosenModuleTool(
  mod: Record<string, unknown>,
  spec: Pick<ToolDefinition, 'module' | 'name'>,
): unknown {
  const exportName = spec.module?.export;
  if (exportName !== undefined) return mod[exportName];
  if (isTool(mod.default)) return mod.default;
  const tools = [...new Set(Object.values(mod).filter(isTool))];
  return tools.length === 1 ? tools[0] : tools.find((t) => t.name === spec.name);
}

/** A `kind: tool` with `module`: the module's tool, with name and settings from the YAML. */
export async function moduleTool(spec: ToolDefinition, ctx: FactoryContext): Promise<AnyTool> {
  const module = spec.module as NonNullable<ToolDefinition['module']>;
  const mod = await ctx.importModule(ctx.resolvePath(module.path));
  const tool = chosenModuleTool(mod, spec);
  if (!isTool(tool)) {
    const which = module.export ? `\`${module.export}\`` : 'a default export or a single tool';
    throw new Error(`module ${module.path} has no tool as ${which}`);
  }
  // The YAML's parameters, when given, replace the module's.
  if (spec.parameters === undefined) throwOnParametersProblem(module.path, tool);
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
