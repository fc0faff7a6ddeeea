import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyTool } from '@agentctl/core';

/**
 * An error a module tool's code threw or rejected with outside the promise its call returned (in a
 * timer's callback, or a promise nobody awaited): the call's failure, not the process's.
 */
export class StrayFailureError extends Error {
  constructor(tool: string, error: unknown) {
    const text = error instanceof Error ? error.message : String(error);
    super(
      `${text} (thrown by code of ${tool} that nothing awaited: a callback, or a promise left unhandled)`,
      {
        cause: error,
      },
    );
    this.name = new.target.name;
  }
}

interface CallScope {
  fail(error: unknown): void;
}

// The call whose code is running, through its timers and promises: Node runs the handlers of an
// uncaught exception and of an unhandled rejection in the context of the code that caused them.
const calls = new AsyncLocalStorage<CallScope>();
let hooked = false;

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
}

function unhook(): void {
  hooked = false;
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
}

function onRejection(reason: unknown): void {
  const call = calls.getStore();
  if (call) {
    call.fail(reason);
    return;
  }
  if (process.listenerCount('unhandledRejection') > 1) return;
  // Not a tool's, and nobody else handles it: raised again, it ends the process as without us.
  unhook();
  void Promise.reject(reason);
}

function onException(error: unknown): void {
  const call = calls.getStore();
  if (call) {
    call.fail(error);
    return;
  }
  if (process.listenerCount('uncaughtException') > 1) return;
  unhook();
  process.nextTick(() => {
    throw error;
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * A module tool whose code failing outside its call's promise (a throw in a `setTimeout`
 * callback, a promise rejected with nobody to handle it) fails that call with a
 * {@link StrayFailureError} instead of ending the process with a stack trace. A failure after the
 * call has ended is passed to `late` (scrubbed by the caller) and otherwise ignored.
 */
export function guardStrayFailures(tool: AnyTool, late: (text: string) => void): AnyTool {
  return {
    ...tool,
    execute(args, context) {
      hook();
      let ended = false;
      let reject: (error: unknown) => void = () => {};
      const failed = new Promise<never>((_, rejectWith) => {
        reject = rejectWith;
      });
      const scope: CallScope = {
        fail(error) {
          if (!ended) {
            ended = true;
            reject(new StrayFailureError(tool.name, error));
            return;
          }
          const text = error instanceof Error ? error.message : String(error);
          late(
            `agentctl: warning: code of tool \`${tool.name}\` failed after its call had ended (ignored): ${text}\n`,
          );
        },
      };
      const value = calls.run(scope, () => tool.execute(args, context));
      if (!isThenable(value)) {
        ended = true;
        return value;
      }
      return Promise.race([value, failed]).finally(() => {
        ended = true;
      });
    },
  };
}
