import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ToolSpec } from '../spec-types.js';
import { argvProblems } from '../tools/command-argv.js';
import { type RuleContext, validEntries } from './rule.js';

/** A command tool's argv lets the model choose neither the program nor the code of a script. */
export function commandArgv(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    const argv = tool.spec.command?.argv;
    if (!argv) continue;
    for (const problem of argvProblems(argv)) {
      out.push(
        diagnostic(
          tool.file,
          tool.locate(['command', 'argv', problem.index]),
          'command-argv',
          problem.message,
        ),
      );
    }
  }
  return out;
}
