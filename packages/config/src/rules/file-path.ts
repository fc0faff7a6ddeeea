import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { IndexedEntry } from '../load/index-documents.js';
import { resolveProjectPath } from '../paths.js';
import type { MemorySpec, ModelSpec, ProjectSpec, ToolSpec, ToolsetSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
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
        expects: 'file',
        text: true,
      });
    // A built-in's `root` (inline or under `options:`) is the folder it is confined to.
    agent.spec.tools?.forEach((tool, i) => {
      if (typeof tool !== 'object' || !('builtin' in tool)) return;
      const inline = typeof tool.root === 'string';
      const root = inline ? tool.root : tool.options?.root;
      if (typeof root === 'string')
        uses.push({
          entry: agent,
          path: inline ? ['tools', i, 'root'] : ['tools', i, 'options', 'root'],
          written: root,
          mustExist: true,
          what: 'root folder',
          expects: 'dir',
        });
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
        expects: 'file',
        text: true,
      });
    if (model.spec.cassette)
      uses.push({
        entry: model,
        path: ['cassette'],
        written: model.spec.cassette,
        mustExist: false,
        what: 'cassette',
        expects: 'file',
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
        expects: 'dir',
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
        expects: 'dir',
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
        expects: 'dir',
      });
  }
  const project = ctx.specs.project as IndexedEntry | undefined;
  const envFile = (project?.spec as ProjectSpec | undefined)?.env_file;
  if (project && envFile !== undefined)
    // Not required to exist (CI has no secrets), but never read from outside or from a FIFO.
    uses.push({
      entry: project,
      path: ['env_file'],
      written: envFile,
      mustExist: false,
      what: 'env file',
      expects: 'file',
    });
  return [...uses.flatMap((use) => checkPath(ctx, use, 'file-path')), ...scriptsInInclude(ctx)];
}

// A script file is a YAML list of turns, not documents: matched by `include`, it is read as both.
function scriptsInInclude(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const files = new Set(ctx.entries.map((e) => e.absFile));
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    if (typeof model.spec.script !== 'string' || model.spec.script.includes('${')) continue;
    const absolute = resolveProjectPath(ctx.root, model.absFile, model.spec.script).absolute;
    if (files.has(absolute) || ctx.parsedFiles?.has(absolute))
      out.push(
        diagnostic(
          model.file,
          model.locate(['script']),
          'file-path',
          `script \`${excerpt(model.spec.script)}\` is also matched by the project's include globs and read as agent documents; add it to \`exclude\` in agentctl.yaml (or move it out of the included folders)`,
        ),
      );
  }
  return out;
}
