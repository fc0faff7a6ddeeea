// Loaded with `node --import` by a test: appends every module the process loads to the file named
// by RECORD_LOADS, one per line (`esm URL` or `cjs PATH`), to show what a command loaded.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const log = process.env.RECORD_LOADS;
if (log) {
  register(new URL('./record-loads-hooks.mjs', import.meta.url), { data: { log } });
  const load = Module._load;
  Module._load = function recorded(request, parent, ...rest) {
    const loaded = load.call(this, request, parent, ...rest);
    try {
      appendFileSync(log, `cjs ${Module._resolveFilename(request, parent)}\n`);
    } catch {
      // A built-in or an unresolvable name: nothing of the project's.
    }
    return loaded;
  };
}
