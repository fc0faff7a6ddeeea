// Packing copies the repository's schemas/ into this package (prepack) and removes the copy after
// (postpack): an installed @agentctl/config finds them beside its dist/, a clone at the root.
import { cpSync, rmSync } from 'node:fs';

const copy = new URL('../schemas/', import.meta.url);
if (process.argv[2] === 'remove') rmSync(copy, { recursive: true, force: true });
else cpSync(new URL('../../../schemas/', import.meta.url), copy, { recursive: true });
