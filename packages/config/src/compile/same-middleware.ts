import type { Middleware } from '@agentctl/core';

/**
 * The wrapper of a middleware, made to read as the middleware it wraps: its name (compose names a
 * middleware by it in its errors), its `holdsAnswers` (an agent whose middleware rewrites answers
 * must not stream them before the rewrite, wrapped or not) and its `redactsCalls` with its `redactionMarker`.
 */
export function sameMiddleware(wrapper: Middleware, wrapped: Middleware): Middleware {
  Object.defineProperty(wrapper, 'name', { value: wrapped.name });
  if (wrapped.holdsAnswers === true) Object.defineProperty(wrapper, 'holdsAnswers', { value: true });
  if (typeof wrapped.redactsCalls === 'function')
    Object.defineProperty(wrapper, 'redactsCalls', { value: wrapped.redactsCalls, configurable: true });
  if (typeof wrapped.redactionMarker === 'string')
    Object.defineProperty(wrapper, 'redactionMarker', { value: wrapped.redactionMarker });
  return wrapper;
}
