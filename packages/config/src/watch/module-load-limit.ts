/** How long one module may take to import in a module worker before it is given up on (never a hang). */
export const MODULE_LOAD_LIMIT_MS = 30_000;

/** The limit in force: `AGENTCTL_MODULE_LOAD_LIMIT_MS` when set to a positive number, else 30 s. */
export function moduleLoadLimitMs(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number(env.AGENTCTL_MODULE_LOAD_LIMIT_MS);
  return Number.isFinite(set) && set > 0 ? set : MODULE_LOAD_LIMIT_MS;
}

/**
 * A module that did not finish importing within the limit: an endless loop at its top level, or a
 * top-level `await` that never settles. Its worker may be stuck in the module's code for good.
 */
export class ModuleLoadTimeout extends Error {
  constructor(ms = moduleLoadLimitMs(), what = 'it') {
    super(
      `${what} did not finish loading within ${ms / 1000} s (an endless loop at its top level, or a top-level await that never settles?)`,
    );
  }
}
