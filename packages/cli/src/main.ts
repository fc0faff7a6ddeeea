import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, EXIT } from './cli-error.js';
import { type Io, processIo } from './io.js';
import { CommanderError, createProgram, type Invocation, isCleanExit } from './program.js';
import { systemRefusal } from './system-refusal.js';
import { startCommandTracing } from './tracing.js';

/** Runs the command line and returns the exit code. */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const { program, result } = createProgram((invocation) => execute(invocation, io));
  program.configureOutput({
    writeOut: (text) => io.stdout(text),
    writeErr: (text) => io.stderr(text),
    outputError: (text, write) => write(text),
  });
  try {
    await program.parseAsync([...argv]);
    return result();
  } catch (error) {
    if (isCleanExit(error)) return EXIT.ok;
    if (error instanceof CommanderError) return EXIT.usage;
    return report(error, io, argv.includes('--debug'));
  }
}

async function execute(invocation: Invocation, io: Io): Promise<number> {
  let tracing: Awaited<ReturnType<typeof startCommandTracing>>;
  try {
    // A mistyped -C would load an empty project: `validate` would pass and `run` find no agent.
    const dir = invocation.options.project;
    if (typeof dir === 'string' && invocation.command !== 'init') {
      const found = statSync(resolve(io.cwd, dir), { throwIfNoEntry: false });
      if (!found) throw new CliError(`no such project folder: ${dir}`, EXIT.usage);
      // `-C agents/bot.yaml` for `validate agents/bot.yaml` is the usual way to get here.
      if (!found.isDirectory())
        throw new CliError(
          `-C ${dir}: not a folder; -C names the project's folder (the one with agentctl.yaml)`,
          EXIT.usage,
        );
    }
    tracing = await startCommandTracing(invocation.command, invocation.options, io);
    const command = await loadCommand(invocation.command);
    const code = await command(invocation.options, io);
    // A failed write to stdout is emitted on a later tick than the write itself.
    if (io.outputFailure) await new Promise((settled) => setImmediate(settled));
    const failure = io.outputFailure?.();
    if (failure) {
      io.stderr(`agentctl: the output could not be written: ${systemRefusal(failure) ?? failure.message}\n`);
      return EXIT.failed;
    }
    return code;
  } catch (error) {
    return report(error, io, invocation.options.debug === true);
  } finally {
    // Every exit path (a failed run, Ctrl-C ending the run) flushes the spans before the process ends.
    await tracing?.shutdown();
  }
}

// Each command is imported on demand so `agentctl run` never loads the validator's formatters.
async function loadCommand(
  name: string,
): Promise<(options: Record<string, unknown>, io: Io) => Promise<number>> {
  switch (name) {
    case 'validate':
      return (await import('./commands/validate/index.js')).validateCommand;
    case 'run':
      return (await import('./commands/run/index.js')).runCommand;
    case 'dev':
      return (await import('./commands/dev/index.js')).devCommand;
    case 'list':
      return (await import('./commands/list/index.js')).listCommand;
    case 'tree':
      return (await import('./commands/tree/index.js')).treeCommand;
    case 'schema':
      return (await import('./commands/schema/index.js')).schemaCommand;
    case 'init':
      return (await import('./commands/init/index.js')).initCommand;
    case 'serve':
      return (await import('./commands/serve/index.js')).serveCommand;
    case 'test':
      return (await import('./commands/test/index.js')).testCommand;
    case 'schedules':
      return (await import('./commands/schedules/index.js')).schedulesCommand;
    case 'worker':
      return (await import('./commands/worker/index.js')).workerCommand;
    case 'sessions':
      return (await import('./commands/sessions-entry.js')).sessionsEntry;
    default:
      throw new CliError(`unknown command ${name}`, EXIT.usage);
  }
}

function report(error: unknown, io: Io, debug: boolean): number {
  if (error instanceof CliError) {
    io.stderr(`agentctl: ${error.message}\n`);
    return error.exitCode;
  }
  // The machine's refusal is no bug of agentctl's: a failed command (1), without a stack trace.
  const refused = systemRefusal(error);
  if (refused) {
    io.stderr(`agentctl: ${refused}\n`);
    return EXIT.failed;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`agentctl: internal error: ${message}\n`);
  if (debug && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  else io.stderr('(run again with --debug for the stack trace)\n');
  return EXIT.internal;
}
