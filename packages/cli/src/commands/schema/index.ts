import { KINDS, loadSchema } from '@agentctl/config';
import { CliError, EXIT } from '../../cli-error.js';
import type { Io } from '../../io.js';
import { bundleSchema } from './bundle-schema.js';

/** `agentctl schema [kind]`: prints the JSON Schema editors and CI use, as one self-contained document. */
export async function schemaCommand(options: Record<string, unknown>, io: Io): Promise<number> {
  const kind = (options.kind as string | undefined) ?? 'agentctl';
  if (kind !== 'agentctl' && !(KINDS as readonly string[]).includes(kind)) {
    throw new CliError(`unknown kind "${kind}"; kinds: ${KINDS.join(', ')}`, EXIT.usage);
  }
  io.stdout(`${JSON.stringify(bundleSchema(loadSchema(kind), loadSchema), null, 2)}\n`);
  return 0;
}
