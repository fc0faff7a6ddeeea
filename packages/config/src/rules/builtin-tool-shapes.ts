import { type AnyTool, BUILTIN_TOOLS } from '@agentctl/core';
import { Secrets } from '../env/secrets.js';
import { TOOLBOX } from '../toolbox/toolbox.js';

/**
 * The tools `- builtin: NAME` gives an agent, made with default options to read their names and
 * parameters without compiling (they do nothing until called); empty for a name neither core nor
 * the toolbox knows.
 */
export function builtinToolShapes(name: string, root: string): AnyTool[] {
  const out: AnyTool[] = [];
  const core = (BUILTIN_TOOLS as Record<string, (options: unknown) => AnyTool>)[name];
  if (core) out.push(core({ root }));
  const toolbox = TOOLBOX[name];
  if (toolbox) {
    const context = { root, file: `${root}/agentctl.yaml`, env: {}, secrets: new Secrets() };
    out.push(...[toolbox({}, context)].flat());
  }
  return out;
}
