import type { Diagnostic } from '../diagnostic.js';
import type { MemorySpec, ModelSpec, ToolSpec, ToolsetSpec } from '../spec-types.js';
import { checkPath, type PathUse } from './module-path.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

/** Other paths (instruction files, scripts, cassettes, working and data folders) stay in the project; files read at compile exist. */
export function filePath(ctx: RuleContext): Diagnostic[] {
  const uses: PathUse[] = [];
  for (const agent of validAgents(ctx)) {
    if (agent.spec.instruction_file)
      uses.push({
        entry: agent,
        path: ['instruction_file'],
        written: agent.spec.instruction_file,
        mustExist: true,
        what: 'instruction file',
      });
  }
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    if (typeof model.spec.script === 'string')
      uses.push({
        entry: model,
        path: ['script'],
        written: model.spec.script,
        mustExist: true,
        what: 'script',
      });
    if (model.spec.cassette)
      uses.push({
        entry: model,
        path: ['cassette'],
        written: model.spec.cassette,
        mustExist: false,
        what: 'cassette',
      });
  }
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    if (tool.spec.command?.cwd)
      uses.push({
        entry: tool,
        path: ['command', 'cwd'],
        written: tool.spec.command.cwd,
        mustExist: true,
        what: 'working folder',
      });
  }
  for (const set of validEntries<ToolsetSpec>(ctx, 'toolset')) {
    if ('command' in set.spec.mcp && set.spec.mcp.cwd)
      uses.push({
        entry: set,
        path: ['mcp', 'cwd'],
        written: set.spec.mcp.cwd,
        mustExist: true,
        what: 'working folder',
      });
  }
  for (const memory of validEntries<MemorySpec>(ctx, 'memory')) {
    if (memory.spec.path)
      uses.push({
        entry: memory,
        path: ['path'],
        written: memory.spec.path,
        mustExist: false,
        what: 'memory path',
      });
  }
  return uses.flatMap((use) => checkPath(ctx, use, 'file-path'));
}
