import { AgentError, type Middleware } from '@agentctl/core';
import { displayPath } from '../paths.js';
import { sameMiddleware } from './same-middleware.js';

/**
 * A project's module middleware whose own failures are the project's: an error its code throws
 * (not one that came up through `next()` from the model, a tool or inner middleware) ends the run
 * as a `CONFIG_ERROR` naming the middleware, the action and its file. Left as it is, such an error
 * around a model call would read as the provider's (`PROVIDER_ERROR`, its text shown to a server's
 * clients), and elsewhere as agentctl's own bug (`INTERNAL_ERROR`, exit 3).
 */
export function blamedMiddleware(
  name: string,
  file: string,
  root: string,
  middleware: Middleware,
): Middleware {
  const where = displayPath(root, file);
  const blamed: Middleware = (action, next) => {
    // What `next()` rejected with is passed on as it is: it is not this middleware's failure.
    let passedOn: unknown;
    const inner: typeof next = (replacement) =>
      next(replacement).catch((error: unknown) => {
        passedOn = error;
        throw error;
      });
    const own = (error: unknown): never => {
      if (error instanceof AgentError || (error === passedOn && passedOn !== undefined)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new AgentError(
        `middleware \`${name}\` (${where}) failed during ${action.type}: ${message}`,
        'CONFIG_ERROR',
        {
          cause: error,
          context: { middleware: name, during: action.type },
        },
      );
    };
    let out: ReturnType<Middleware>;
    try {
      out = middleware(action, inner);
    } catch (error) {
      return Promise.reject(error).catch(own);
    }
    return Promise.resolve(out).catch(own);
  };
  const named = sameMiddleware(blamed, middleware);
  const redacts = middleware.redactsCalls;
  if (typeof redacts !== 'function') return named;
  // Its rule runs as a call is recorded, outside any action: a throw there is the project's too.
  const redactsCalls = (text: string): string => {
    try {
      return redacts(text);
    } catch (error) {
      if (error instanceof AgentError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new AgentError(
        `middleware \`${name}\` (${where}) failed redacting a tool call's arguments (redactsCalls): ${message}`,
        'CONFIG_ERROR',
        { cause: error, context: { middleware: name, during: 'redactsCalls' } },
      );
    }
  };
  return Object.defineProperty(named, 'redactsCalls', { value: redactsCalls });
}
