import type { Agent } from './agent.js';
import type { AgentError } from './errors.js';
import type { AgentEvent } from './events.js';
import type { ChatParams, ModelResponse } from './model.js';
import type { AnyTool } from './tool.js';

/** The invocation an observed event belongs to. */
export interface ObservedInvocation {
  invocationId: string;
  sessionId: string;
  /** The agent the runner runs: the root of the tree its events' authors belong to. */
  agent: Agent;
  /** For the child invocation of an agent tool: the calling session and tool call. */
  parent?: { sessionId: string; callId: string };
}

/** A model call about to be made through an agent's middleware. */
export interface ObservedModelCall {
  invocationId: string;
  /** The branch of the agent that makes the call. */
  branch: string;
  agent: string;
  /** The provider's name, such as `openai` or `offline`. */
  provider: string;
  /** The request as the middleware left it; its `messages` grow after the call, so read them at once. */
  request: ChatParams;
  /** The `performance.now()` reading the call starts at: an observer's times need no clock of its own. */
  started: number;
}

/**
 * Told exactly once how an observed model call ended, with the `performance.now()` reading it
 * ended at (the runtime reads the clock once for the usage event's duration and its observers).
 */
export interface ModelCallObservation {
  end(response: ModelResponse, ended: number): void;
  fail(error: AgentError, ended: number): void;
}

/** A tool call about to run its tool (after its arguments were checked and any approval given). */
export interface ObservedToolCall {
  invocationId: string;
  branch: string;
  agent: string;
  callId: string;
  /** The tool's name. */
  name: string;
  /**
   * The tool the call runs, undefined when the agent has none of that name (a middleware may still
   * answer the call): an observer tells tools apart by what the project marked on them.
   */
  tool: AnyTool | undefined;
  /** Milliseconds the call may take: the tool's timeout, else its agent's. */
  timeoutMs: number;
  /** The `performance.now()` reading the call starts at. */
  started: number;
}

/** Told exactly once that an observed tool call ended, however it ended, with the reading it ended at. */
export interface ToolCallObservation {
  end(ended: number): void;
}

/**
 * Watches every invocation of every runner in the process, for tracing and metrics. Observers
 * see what happened; they cannot change it, and an observer that throws is ignored.
 */
export interface RunObserver {
  /** Every event an invocation records, once, in order (an agent tool's events under its own invocation). */
  event?(event: AgentEvent, invocation: ObservedInvocation): void;
  /** A model call starts; the observation returned is told how it ended. */
  modelCall?(call: ObservedModelCall): ModelCallObservation | undefined;
  /** A tool call starts running its tool; the observation returned is told when it ended. */
  toolCall?(call: ObservedToolCall): ToolCallObservation | undefined;
}

// One list per process, not per copy of this module: a bundled CLI carries its own copy of core,
// and `@agentctl/tracing`, loaded beside it from node_modules, observes through another.
const OBSERVERS = Symbol.for('agentctl.runObservers');
const processWide = globalThis as { [OBSERVERS]?: RunObserver[] };
processWide[OBSERVERS] ??= [];
const observers: RunObserver[] = processWide[OBSERVERS];

/**
 * Adds an observer of every run in the process and returns the function that removes it. With no
 * observer, runs pay one length check per event and per model call.
 *
 * @example
 * const stop = observeRuns({ event: (e) => console.error(e.type) });
 */
export function observeRuns(observer: RunObserver): () => void {
  observers.push(observer);
  return () => {
    const at = observers.indexOf(observer);
    if (at >= 0) observers.splice(at, 1);
  };
}

/** Whether an observer watches tool calls (most do not: a tool call then builds nothing for them). */
export function observingToolCalls(): boolean {
  for (const observer of observers) if (observer.toolCall) return true;
  return false;
}

/** Tells every observer of tool calls that one starts; the result is told when it ends. */
export function notifyToolCall(call: ObservedToolCall): ToolCallObservation | undefined {
  const watching = observationsOf((observer) => observer.toolCall?.(call));
  if (watching.length === 0) return undefined;
  if (watching.length === 1) return watching[0];
  return {
    end: (ended) => {
      for (const w of watching) attempt(() => w.end(ended));
    },
  };
}

/** Whether anyone observes runs (checked before building what observers would be given). */
export function observingRuns(): boolean {
  return observers.length > 0;
}

/** Hands an event to every observer. */
export function notifyEvent(event: AgentEvent, invocation: ObservedInvocation): void {
  for (const observer of observers) {
    try {
      observer.event?.(event, invocation);
    } catch {
      // An observer's failure must not change the run it watches.
    }
  }
}

/** Tells every observer a model call starts; the result is told how it ends (undefined: nobody watches). */
export function notifyModelCall(call: ObservedModelCall): ModelCallObservation | undefined {
  // The usual case, one observer (tracing), hands its observation back as it is.
  if (observers.length === 1) {
    try {
      return observers[0].modelCall?.(call);
    } catch {
      return undefined;
    }
  }
  const watching = observationsOf((observer) => observer.modelCall?.(call));
  if (watching.length === 0) return undefined;
  return {
    end: (response, ended) => {
      for (const w of watching) attempt(() => w.end(response, ended));
    },
    fail: (error, ended) => {
      for (const w of watching) attempt(() => w.fail(error, ended));
    },
  };
}

// What every observer returned for a call that starts (an observer that throws is left out).
function observationsOf<T>(ask: (observer: RunObserver) => T | undefined): T[] {
  const watching: T[] = [];
  for (const observer of observers) {
    try {
      const observation = ask(observer);
      if (observation) watching.push(observation);
    } catch {
      // Observing never breaks the call.
    }
  }
  return watching;
}

function attempt(fn: () => void): void {
  try {
    fn();
  } catch {
    // Ignored for the same reason.
  }
}
