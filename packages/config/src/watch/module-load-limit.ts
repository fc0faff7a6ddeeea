/** How long one module may take to import in a module worker before it is given up on (never a hang). */
export const MODULE_LOAD_LIMIT_MS = 30_000;

/**
 * A module that did not finish importing within the limit: an endless loop at its top level, or a
 * top-level `await` that never settles. Its worker may be stuck in the module's code for good.
 */
export class ModuleLoadTimeout extends Error {
  constructor(ms = MODULE_LOAD_LIMIT_MS, what = 'it') {
    super(
      `${what} did not finish loading within ${ms / 1000} s (an endless loop at its top level, or a top-level await that never settles?)`,
    );
  }
}
