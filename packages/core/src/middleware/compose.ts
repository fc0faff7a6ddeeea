import type { AgentAction, Middleware } from './types.js';

/**
 * Runs `action` through `middleware` in onion order and then through `core`.
 *
 * A middleware may call `next()` again only after the previous call failed: that is what retry
 * needs, and it rules out running the same step twice by accident.
 */
export function compose(
  middleware: readonly Middleware[],
): (action: AgentAction, core: (action: AgentAction) => Promise<AgentAction>) => Promise<AgentAction> {
  if (middleware.length === 0) return (action, core) => core(action);
  return (action, core) => {
    const dispatch = (index: number, current: AgentAction): Promise<AgentAction> => {
      if (index === middleware.length) return core(current);
      const fn = middleware[index];
      let state: 'idle' | 'running' | 'succeeded' = 'idle';
      const next = async (replacement?: AgentAction): Promise<AgentAction> => {
        if (state === 'running')
          throw new Error(`middleware "${fn.name || index}" called next() twice at once`);
        if (state === 'succeeded') {
          throw new Error(`middleware "${fn.name || index}" called next() again after it succeeded`);
        }
        state = 'running';
        try {
          const result = await dispatch(index + 1, replacement ?? current);
          state = 'succeeded';
          return result;
        } catch (error) {
          state = 'idle';
          throw error;
        }
      };
      return fn(current, next);
    };
    return dispatch(0, action);
  };
}
