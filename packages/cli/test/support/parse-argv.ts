import { createProgram, type Invocation } from '../../src/program.js';

/** What the command line `agentctl ...argv` parses into, without running anything. */
export async function parseArgv(argv: string[]): Promise<Invocation> {
  let seen: Invocation | undefined;
  const { program } = createProgram(async (invocation) => {
    seen = invocation;
    return 0;
  });
  await program.parseAsync(['node', 'agentctl', ...argv]);
  return seen as Invocation;
}
