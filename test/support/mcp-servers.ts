import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { REPO } from './cli.js';

// The MCP servers from npm are dev dependencies of @agentctl/mcp, resolved from there.
const require = createRequire(join(REPO, 'packages/mcp/package.json'));

/** The entry script (`dist/index.js`) of an MCP server package, to start with `node`. */
export function mcpServerEntry(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
}

/** The entry script of server-everything (tools with several schemas, images, progress). */
export const EVERYTHING = mcpServerEntry('@modelcontextprotocol/server-everything');

/** The entry script of server-filesystem (takes the folder it serves as its argument). */
export const FILESYSTEM = mcpServerEntry('@modelcontextprotocol/server-filesystem');
