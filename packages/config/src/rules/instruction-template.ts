import { templateProblems, templateProblemsAt } from '../compile/instruction.js';
import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { displayPath, readProjectFile, resolveProjectPath } from '../paths.js';
import { type RuleContext, validAgents } from './rule.js';

// The templates of an instruction file, reported at their line and column in that file. A file
// that cannot be read is the file-path rule's.
function fileProblems(ctx: RuleContext, from: string, written: string): Diagnostic[] {
  let text: string;
  try {
    text = readProjectFile(ctx.root, from, written, 'instruction file');
  } catch {
    return [];
  }
  const shown = displayPath(ctx.root, resolveProjectPath(ctx.root, from, written).absolute);
  return templateProblemsAt(text).map((problem) =>
    diagnostic(
      shown,
      rangeOf(text, problem.index, problem.length),
      'instruction-template',
      problem.message,
      'warning',
    ),
  );
}

function rangeOf(text: string, index: number, length: number): SourceRange {
  const at = (offset: number) => {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    return { line, col: offset - before.lastIndexOf('\n') };
  };
  const start = at(index);
  const end = at(index + length);
  return { line: start.line, col: start.col, endLine: end.line, endCol: end.col };
}

/** Instruction templates use only `input`, `state.KEY`, `agent.name`, `date`; one of instruction or instruction_file. */
export function instructionTemplate(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    const { instruction, instruction_file: file } = agent.spec;
    if (instruction !== undefined && file !== undefined) {
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['instruction_file'], { key: true }),
          'instruction-template',
          'set `instruction` or `instruction_file`, not both',
        ),
      );
    }
    if (file !== undefined && instruction === undefined) out.push(...fileProblems(ctx, agent.absFile, file));
    if (instruction === undefined) continue;
    for (const problem of templateProblems(instruction)) {
      out.push(
        diagnostic(agent.file, agent.locate(['instruction']), 'instruction-template', problem, 'warning'),
      );
    }
  }
  return out;
}
