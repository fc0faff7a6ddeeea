import { templateProblems, templateProblemsAt } from '../compile/instruction.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { instructionFileText, rangeIn } from './instruction-file-text.js';
import { type RuleContext, validAgents } from './rule.js';

// The templates of an instruction file, reported at their line and column in that file.
function fileProblems(ctx: RuleContext, from: string, written: string): Diagnostic[] {
  const read = instructionFileText(ctx, from, written);
  if (!read) return [];
  return templateProblemsAt(read.text).map((problem) =>
    diagnostic(
      read.file,
      rangeIn(read.text, problem.index, problem.length),
      'instruction-template',
      problem.message,
      'warning',
    ),
  );
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
