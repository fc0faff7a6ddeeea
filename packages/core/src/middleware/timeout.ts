import { AgentError } from '../errors.js';
import type { AgentAction, Middleware } from './types.js';

/** Options of {@link timeout}. */
export interface TimeoutOptions {
  /** Milliseconds one model call may take. */
  model?: number;
  /** Milliseconds one tool call may take. */
  tool?: number;
}

/**
 * Fails a model or tool call that takes too long with a `TIMEOUT` error, and aborts the work
 * through its signal so nothing keeps running in the background.
 *
 * @example
 * createAgent({ provider, middleware: [timeout({ model: 30_000, tool: 10_000 })] });
 */
export function timeout(options: TimeoutOptions): Middleware {
  return async function timeoutMiddleware(action, next) {
    const ms =
      action.type === 'model_call' ? options.model : action.type === 'tool_call' ? options.tool : undefined;
    if (ms === undefined || (action.type !== 'model_call' && action.type !== 'tool_call')) return next();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new AgentError(`timed out after ${ms} ms`, 'TIMEOUT')),
      ms,
    );
    const replaced = withSignal(action, controller.signal);
    try {
      return await Promise.race([
        next(replaced),
        new Promise<never>((_, reject) => {
          controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}

function withSignal(action: AgentAction, extra: AbortSignal): AgentAction {
  if (action.type === 'model_call') {
    const request = action.payload.request;
    const signal = request.signal ? AbortSignal.any([request.signal, extra]) : extra;
    return { ...action, payload: { ...action.payload, request: { ...request, signal } } };
  }
  if (action.type === 'tool_call') {
    return {
      ...action,
      payload: { ...action.payload, signal: AbortSignal.any([action.payload.signal, extra]) },
    };
  }
  return action;
}
