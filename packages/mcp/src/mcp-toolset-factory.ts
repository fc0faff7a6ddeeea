import type { ToolsetDefinition } from '@agentctl/core';
import { createMcpToolset, type McpToolset } from './mcp-toolset.js';
import type { McpToolsetContext } from './mcp-toolset-spec.js';

/**
 * The registry entry for `kind: toolset` with `mcp:`, from the normalised toolset definition:
 * checks the server (one of `command` or `url`), then connects and lists tools.
 *
 * @example
 * registry.toolsets.set('mcp', mcpToolsetFactory);
 * const toolset = await mcpToolsetFactory(spec, { root: projectDir });
 */
export async function mcpToolsetFactory(
  spec: ToolsetDefinition,
  context: McpToolsetContext,
): Promise<McpToolset> {
  const server = spec.mcp as unknown as Record<string, unknown> | undefined;
  const hasCommand = typeof server?.command === 'string' && server.command !== '';
  const hasUrl = typeof server?.url === 'string' && server.url !== '';
  if (hasCommand === hasUrl) {
    throw new TypeError(
      `toolset "${spec.name}": mcp needs exactly one of "command" (stdio) or "url" (streamable HTTP)`,
    );
  }
  if (hasUrl) {
    try {
      new URL(server?.url as string);
    } catch {
      throw new TypeError(`toolset "${spec.name}": mcp.url "${String(server?.url)}" is not a valid URL`);
    }
  }
  const { timeoutMs, startTimeoutMs, description: _, ...rest } = spec;
  return createMcpToolset({ ...rest, timeout: timeoutMs, startTimeout: startTimeoutMs }, context);
}
