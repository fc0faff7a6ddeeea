import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyTool } from '@agentctl/core';

/**
 * An error a project's module code (a tool, a middleware) threw or rejected with outside the
 * promise it returned (in a timer's callback, or a promise nobody awaited): the failure of the call
 * that ran it, not the process's.
 */
export class StrayFailureError extends Error {
  constructor(owner: string, error: unknown) {
    const text = error instanceof Error ? error.message : String(error);
    super(
      `${text} (thrown by code of ${owner} that nothing awaited: a callback, or a promise left unhandled)`,
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
  // Not project code's, and nobody else handles it: raised again, it ends the process as without us.
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

// Marks an error as project code's failure that nothing awaited, raised where that code ran (the
// module worker of `dev` and `--watch`), to be told as such by the runGuarded that awaited it.
const STRAYED = Symbol.for('agentctl.strayed');

/** `error` marked as a failure of project code that nothing awaited, seen elsewhere (the module worker): {@link runGuarded} tells it as its own. */
export function strayedElsewhere<E extends Error>(error: E): E {
  return Object.assign(error, { [STRAYED]: true });
}

/** Whether `error` was marked by {@link strayedElsewhere}. */
export function isStrayedElsewhere(error: unknown): boolean {
  return (error as { [STRAYED]?: boolean } | null)?.[STRAYED] === true;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** What {@link runGuarded} does with a failure of the code it runs that nothing awaited. */
export interface StrayHandling {
  /** Whose code runs, for {@link StrayFailureError}: a tool's name, ``middleware `audit` ``. */
  owner: string;
  /** Told a failure after `work`'s promise settled (ignored otherwise). */
  late(error: unknown): void;
}

/**
 * Runs project code, `work`, so that its code failing outside the promise it returns (a throw in a
 * `setTimeout` callback, a promise rejected with nobody to handle it) rejects that promise with a
 * {@link StrayFailureError} instead of ending the process with a stack trace; a failure after the
 * promise settled goes to `handling.late`. What `work` calls through {@link outsideGuard} (agentctl's
 * own code, such as a middleware's `next`) is not counted as its code.
 */
export function runGuarded<T>(handling: StrayHandling, work: () => T): T {
  hook();
  let ended = false;
  let reject: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, rejectWith) => {
    reject = rejectWith;
  });
  const scope: CallScope = {
    fail(error) {
      if (ended) {
        handling.late(error);
        return;
      }
      ended = true;
      reject(new StrayFailureError(handling.owner, error));
    },
  };
  const value = calls.run(scope, work);
  if (!isThenable(value)) {
    ended = true;
    return value;
  }
  const elsewhere = (error: unknown) => {
    throw (error as { [STRAYED]?: boolean } | null)?.[STRAYED] === true
      ? new StrayFailureError(handling.owner, error)
      : error;
  };
  return Promise.race([Promise.resolve(value).catch(elsewhere), failed]).finally(() => {
    ended = true;
  }) as T;
}

/** Runs `work` as agentctl's code, within project code {@link runGuarded} runs: its failures are not the project code's. */
export function outsideGuard<T>(work: () => T): T {
  return calls.exit(work);
}

/** The text of a failure, for a warning. */
export function failureText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A module tool whose calls are {@link runGuarded}: its code failing outside its call's promise
 * fails that call with a {@link StrayFailureError}; a failure after the call has ended is passed to
 * `late` as a warning (scrubbed by the caller) and otherwise ignored.
 */
export function guardStrayFailures(tool: AnyTool, late: (text: string) => void): AnyTool {
  const handling: StrayHandling = {
    owner: tool.name,
    late: (error) =>
      late(
        `agentctl: warning: code of tool \`${tool.name}\` failed after its call had ended (ignored): ${failureText(error)}\n`,
      ),
  };
  const asks = tool.needsApproval;
  // Asked as each call is made, synchronously: what its code leaves to fail later is a warning.
  const needsApproval: AnyTool['needsApproval'] =
    typeof asks === 'function'
      ? (args, call) =>
          runGuarded(
            {
              owner: tool.name,
              late: (error) =>
                late(
                  `agentctl: warning: code of tool \`${tool.name}\` failed after its needsApproval had returned (ignored): ${failureText(error)}\n`,
                ),
            },
            () => asks(args, call),
          )
      : asks;
  return {
    ...tool,
    needsApproval,
    execute: (args, context) => runGuarded(handling, () => tool.execute(args, context)),
  };
}
