import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { projectSchema as assembled } from '@agentctl/config';
import { makeFolders } from '@agentctl/core';
import { defaultRegistry } from '../../default-registry.js';

/** The stable `$id` of the published schema; the embedded kinds' ids resolve against it. */
export const SCHEMA_ID = 'https://agentctl.dev/schemas/agentctl.schema.json';

/**
 * The self-contained JSON Schema of one kind (or of any document), with a stable `$id`: the
 * hand-written kinds plus the options of every plugin the command line registers.
 */
export function projectSchema(kind = 'agentctl'): object {
  const bundled = assembled(defaultRegistry(), kind) as { $id?: string };
  return { ...bundled, $id: new URL(`${kind}.schema.json`, SCHEMA_ID).href };
}

/** Writes {@link projectSchema} to `path`, making its folder. */
export async function writeProjectSchema(path: string, kind = 'agentctl'): Promise<void> {
  await makeFolders(dirname(path));
  await writeFile(path, `${JSON.stringify(projectSchema(kind), null, 2)}\n`);
}
