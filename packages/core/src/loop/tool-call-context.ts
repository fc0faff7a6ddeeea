import type { PendingApproval } from '../events.js';
import type { Message, ToolCall } from '../messages.js';
import { markStored } from '../stored-keys.js';
import type { Deadline } from '../timing/deadline.js';
import type { AnyTool, ToolContext, ToolInvocationInfo } from '../tool.js';
import type { LoopContext } from './loop-context.js';
import { pathRefusal } from './policy-verdict.js';

/** Thrown through a tool's own code by `requestInput`; caught by the loop and turned into a pause. */
export class InputRequest extends Error {
  constructor(readonly question: string) {
    super(`input requested: ${question}`);
  }
}

/** Thrown by `pause` from a tool whose own calls wait for a human; the run pauses on them. */
export class PauseRequest extends Error {
  constructor(readonly pending: PendingApproval[]) {
    super('paused on inner calls');
  }
}

/**
 * What one tool call's `execute` receives. A class with lazy parts, not an object of closures:
 * the call's signal is made only if the tool reads it, its state view only if it uses state.
 */
export class ToolCallContext implements ToolContext {
  readonly callId: string;
  readonly messages: readonly Message[];
  readonly invocation: ToolInvocationInfo | undefined;
  /** The state writes of this call, travelling as its result's delta. */
  delta: Record<string, unknown> | undefined;
  readonly #loop: LoopContext;
  readonly #limit: Deadline;
  readonly #given: AbortSignal | undefined;
  readonly #call: ToolCall;
  readonly #tool: AnyTool;
  readonly #approved: boolean;
  #state: ToolContext['state'] | undefined;

  /** `given` is the signal a middleware passed down; without one, the call's own `limit` signal. */
  constructor(
    loop: LoopContext,
    call: ToolCall,
    tool: AnyTool,
    limit: Deadline,
    given: AbortSignal | undefined,
    approved: boolean,
  ) {
    this.callId = call.id;
    this.#call = call;
    this.#tool = tool;
    this.#approved = approved;
    this.messages = loop.messages;
    this.invocation = loop.invocation;
    this.#loop = loop;
    this.#limit = limit;
    this.#given = given;
  }

  get signal(): AbortSignal {
    return this.#given ?? this.#limit.signal;
  }

  get state(): ToolContext['state'] {
    if (this.#state) return this.#state;
    const loop = this.#loop;
    this.#state = {
      get: (key) => (this.delta && key in this.delta ? this.delta[key] : loop.readState()[key]),
      set: (key, value) => {
        this.delta ??= {};
        this.delta[key] = value;
        markStored(this.delta, key, false);
      },
      update: async (key, given) => {
        const update = synchronous(given);
        const shared = loop.updateShared?.(key, update);
        const value = shared ? await shared : (update(this.#state?.get(key)) ?? undefined);
        // The result still travels in this call's delta: the session's events and the run's own
        // view see it; marked as what the store holds, the runner leaves it out of its shared write.
        this.delta ??= {};
        this.delta[key] = value ?? null;
        markStored(this.delta, key, shared !== undefined);
        return value === null ? undefined : value;
      },
    };
    return this.#state;
  }

  // An own property: tools call it detached (`const { endInvocation } = context`).
  readonly endInvocation = (): void => {
    this.#loop.endInvocation();
  };

  requestInput(question: string): never {
    throw new InputRequest(question);
  }

  pause(pending: PendingApproval[]): never {
    throw new PauseRequest(pending);
  }

  pathRefusal(name: string, real: string, below = false): string | undefined {
    return pathRefusal(this.#loop, this.#call, this.#tool, this.#approved, name, real, below);
  }
}

// The store calls `update` under its lock and stores what it returns: a promise would be stored as
// `{}` (or not at all), and the lock cannot be held across the tool's awaits.
function synchronous(update: (current: unknown) => unknown): (current: unknown) => unknown {
  return (current) => {
    const next = update(current);
    if (typeof (next as PromiseLike<unknown> | null)?.then === 'function')
      throw new TypeError('state.update needs a synchronous function: this one returned a promise');
    return next;
  };
}
