import type { AgentResult } from '../agent-config.js';
import type { AgentEvent } from '../events.js';
import type { EventChannel } from './event-channel.js';
import { keptShapes } from './kept-shapes.js';

/**
 * A run in progress: iterate it for events as they happen, or await it (or `result`) for the
 * outcome. Leaving the iteration early cancels the run. Awaiting the run itself before iterating
 * it says the events are not wanted, and they are no longer kept.
 */
export class AgentRun<T = string> implements AsyncIterable<AgentEvent>, PromiseLike<AgentResult<T>> {
  /** Settles when the run ends: the result, or an `AgentError` carrying the partial result. */
  readonly result: Promise<AgentResult<T>>;
  readonly #events: EventChannel<AgentEvent>;
  readonly #controller: AbortController;
  #iterating = false;

  constructor(
    events: EventChannel<AgentEvent>,
    result: Promise<AgentResult<T>>,
    controller: AbortController,
  ) {
    this.#events = events;
    this.#controller = controller;
    this.result = result;
    // Consumers that only iterate see the failure as an `error` event; keep it from going unhandled.
    result.catch(ignore);
  }

  /** The same run (its events, its cancellation) with a result computed from this one's. */
  withResult<U>(result: Promise<AgentResult<U>>): AgentRun<U> {
    return runOf(this.#events, result, this.#controller);
  }

  /** Cancels the run; it ends with an `ABORTED` error and keeps what it has done. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
  }

  // biome-ignore lint/suspicious/noThenProperty: awaiting a run for its result is the intended use.
  then<R1 = AgentResult<T>, R2 = never>(
    onFulfilled?: ((value: AgentResult<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    // Awaited without being iterated: nobody will read the events, so they are not kept.
    if (!this.#iterating) this.#events.discard();
    return this.result.then(onFulfilled, onRejected);
  }

  // Hand-written rather than an async generator (see EventChannel).
  [Symbol.asyncIterator](): AsyncIterableIterator<AgentEvent, undefined> {
    this.#iterating = true;
    const iterator = new RunIterator(this.#events, this);
    keptShapes.iterator = iterator;
    return iterator;
  }
}

// Made outside the class: a class that names itself in its own body is bundled as a class
// expression with an inner name (`class _AgentRun`), which becomes its `name`.
function runOf<U>(
  events: EventChannel<AgentEvent>,
  result: Promise<AgentResult<U>>,
  controller: AbortController,
): AgentRun<U> {
  return new AgentRun<U>(events, result, controller);
}

function ignore(): void {}

// The iterator of a run's events; leaving early (`return`, as `break` calls it) cancels a run still
// going. A class, not an object of closures: every iterated run in flight keeps one.
class RunIterator implements AsyncIterableIterator<AgentEvent, undefined> {
  readonly #events: EventChannel<AgentEvent>;
  readonly #run: { abort(): void };

  constructor(events: EventChannel<AgentEvent>, run: { abort(): void }) {
    this.#events = events;
    this.#run = run;
  }

  next(): Promise<IteratorResult<AgentEvent, undefined>> {
    return this.#events.next();
  }

  return(): Promise<IteratorResult<AgentEvent, undefined>> {
    // A closed channel has every event of a run that has ended: there is nothing left to cancel.
    if (!this.#events.closed) this.#run.abort();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<AgentEvent, undefined> {
    return this;
  }
}
