import { templateProblems } from '../compile/instruction.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { type RuleContext, validAgents } from './rule.js';

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
    if (instruction === undefined) continue;
    for (const problem of templateProblems(instruction)) {
      out.push(
        diagnostic(agent.file, agent.locate(['instruction']), 'instruction-template', problem, 'warning'),
      );
    }
  }
  return out;
}
