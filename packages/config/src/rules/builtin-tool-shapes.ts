import { type AnyTool, BUILTIN_TOOLS } from '@agentctl/core';
import { Secrets } from '../env/secrets.js';
import { normaliseOptions } from '../normalise/normalise-options.js';
import { BUILTIN_TOOL_SCHEMAS } from '../toolbox/builtin-tool-schemas.js';
import { TOOLBOX } from '../toolbox/toolbox.js';

/**
 * The tools `- builtin: NAME` gives an agent with the options written (YAML spelling: inline and
 * under `options:`), made to read their names and parameters without compiling (they do nothing
 * until called): `read_only: true` leaves a filesystem without write_file. Empty for a name neither
 * core nor the toolbox knows, or options its factory refuses (which validate reports elsewhere).
 */
export function builtinToolShapes(
  name: string,
  root: string,
  written: Record<string, unknown> = {},
): AnyTool[] {
  const out: AnyTool[] = [];
  try {
    const options = { ...normaliseOptions(written, BUILTIN_TOOL_SCHEMAS[name]), root, roots: [] };
    const core = (BUILTIN_TOOLS as Record<string, (options: unknown) => AnyTool>)[name];
    if (core) out.push(core(options));
    const toolbox = TOOLBOX[name];
    if (toolbox) {
      const context = { root, file: `${root}/agentctl.yaml`, env: {}, secrets: new Secrets() };
      out.push(...[toolbox(options, context)].flat());
    }
  } catch {
    return [];
  }
  return out;
}
