import type { Middleware } from '@agentctl/core';
import { sameMiddleware } from './same-middleware.js';
import { failureText, outsideGuard, runGuarded } from './stray-failures.js';

/**
 * A module middleware whose code failing where nothing awaits it (a throw in a timer's callback, a
 * promise rejected with nobody to handle it), before or after its `next()`, fails the action it
 * handles (a `StrayFailureError`, which blamedMiddleware names as the middleware's) instead of
 * ending the process; a failure once that action is done is passed to `late` as a warning (scrubbed
 * by the caller). What fails within `next()` (the model, a tool, inner middleware) is not its own.
 */
export function strayGuardedMiddleware(
  name: string,
  middleware: Middleware,
  late: (text: string) => void,
): Middleware {
  const guarded: Middleware = (action, next) =>
    runGuarded(
      {
        owner: `middleware \`${name}\``,
        late: (error) =>
          late(
            `agentctl: warning: code of middleware \`${name}\` failed after its ${action.type} had ended (ignored): ${failureText(error)}\n`,
          ),
      },
      () => middleware(action, (replacement) => outsideGuard(() => next(replacement))),
    );
  const named = sameMiddleware(guarded, middleware);
  const redacts = middleware.redactsCalls;
  if (typeof redacts !== 'function') return named;
  // Called as a call is recorded, synchronously: what its code leaves to fail later is a warning.
  const redactsCalls = (text: string): string =>
    runGuarded(
      {
        owner: `middleware \`${name}\``,
        late: (error) =>
          late(
            `agentctl: warning: code of middleware \`${name}\` failed after its redactsCalls had returned (ignored): ${failureText(error)}\n`,
          ),
      },
      () => redacts(text),
    );
  return Object.defineProperty(named, 'redactsCalls', { value: redactsCalls, configurable: true });
}
