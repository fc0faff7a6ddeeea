import { AgentError } from '../errors.js';
import { abortable } from '../loop/abortable.js';
import { deadline } from '../timing/deadline.js';
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
    if (action.type !== 'model_call' && action.type !== 'tool_call') return next();
    const ms = action.type === 'model_call' ? options.model : options.tool;
    if (ms === undefined) return next();
    const outer = action.type === 'model_call' ? action.payload.request.signal : action.payload.signal;
    const limit = deadline(outer, ms, () => new AgentError(`timed out after ${ms} ms`, 'TIMEOUT'));
    try {
      return await abortable(next(withSignal(action, limit.signal)), limit.signal);
    } finally {
      limit.dispose();
    }
  };
}

function withSignal(action: AgentAction, signal: AbortSignal): AgentAction {
  if (action.type === 'model_call') {
    return { ...action, payload: { ...action.payload, request: { ...action.payload.request, signal } } };
  }
  if (action.type === 'tool_call') return { ...action, payload: { ...action.payload, signal } };
  return action;
}
