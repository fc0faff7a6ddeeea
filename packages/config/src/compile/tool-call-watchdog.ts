import { observeRuns } from '@agentctl/core';
import { watchMainThread } from './main-thread-watchdog.js';

/**
 * Watches every tool call of the process's runs until the returned function is called: a call that
 * holds the main thread past its timeout without yielding (a module tool's endless loop, which no
 * timer can interrupt) is named on stderr, and with `fatal` the process ends there rather than hang.
 */
export function watchToolCalls(options: { fatal: boolean }): () => void {
  return observeRuns({
    toolCall(call) {
      const end = watchMainThread({
        kind: 'tool',
        name: call.name,
        limitMs: call.timeoutMs,
        startedAt: Date.now() - (performance.now() - call.started),
        fatal: options.fatal,
      });
      return { end };
    },
  });
}
