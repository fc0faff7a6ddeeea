import { resolve } from 'node:path';
import { didYouMean, KINDS } from '@agentctl/config';
import { CliError, EXIT } from '../../cli-error.js';
import type { Io } from '../../io.js';
import { systemRefusal } from '../../system-refusal.js';
import { unwritableTarget } from '../../write-target.js';
import { projectSchema, writeProjectSchema } from './project-schema.js';

/**
 * `agentctl schema [kind] [--write PATH]`: the JSON Schema editors and CI use, as one
 * self-contained document, printed or written to a file.
 */
export async function schemaCommand(options: Record<string, unknown>, io: Io): Promise<number> {
  const kind = (options.kind as string | undefined) ?? 'agentctl';
  if (kind !== 'agentctl' && !(KINDS as readonly string[]).includes(kind)) {
    throw new CliError(
      `unknown kind "${kind}"${didYouMean(kind, KINDS) || ';'} kinds: ${KINDS.join(', ')}`,
      EXIT.usage,
    );
  }
  if (typeof options.write === 'string') {
    const path = resolve(io.cwd, options.write);
    const blocked = unwritableTarget(path);
    if (blocked)
      throw new CliError(`--write ${options.write}: ${blocked}; give the path of a file`, EXIT.usage);
    await writeProjectSchema(path, kind).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(
        `cannot write ${options.write}: ${systemRefusal(error) ?? error.code ?? error.message}`,
        EXIT.failed,
      );
    });
    io.stdout(`wrote ${options.write}\n`);
    return 0;
  }
  io.stdout(`${JSON.stringify(projectSchema(kind), null, 2)}\n`);
  return 0;
}
