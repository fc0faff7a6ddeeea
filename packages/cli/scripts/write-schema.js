// Writes schemas/plugins.schema.json: the options schema of every provider, middleware, memory
// backend and built-in tool the command line registers (`pnpm schema:write`, after `tsc -b`).
// A test fails while the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { builtinInlineKeys, pluginSchema } from '@agentctl/config';
import { defaultRegistry } from '../dist/default-registry.js';

const file = new URL('../../../schemas/plugins.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(pluginSchema(defaultRegistry(), builtinInlineKeys()), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
