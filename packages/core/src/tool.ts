import type { Agent } from './agent.js';
import type { ApprovalDecision, RunOptions } from './agent-config.js';
import type { PendingApproval } from './events.js';
import type { Message, ToolCall } from './messages.js';
import type { JsonSchema, ToolDefinition } from './model.js';
import type { PathArguments } from './tools/path-readings.js';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** The id of the model's call, unique within the conversation. */
  callId: string;
  /** Aborted when the run is cancelled or the tool's timeout passes. */
  signal: AbortSignal;
  /** The conversation so far (read-only). */
  messages: readonly Message[];
  /** Stops the whole invocation once the current step has finished. */
  endInvocation(): void;
  /** Session state: reads see the current state; writes travel as the state delta of this call's result. */
  state: {
    get(key: string): unknown;
    set(key: string, value: unknown): void;
    /**
     * Replaces a key by what `update` (synchronous) makes of its value; `null` or undefined deletes
     * it. Answers the new value. For an `app:`/`user:` key in a runner whose store can
     * (`updateScopedKey`), `update` is given the latest stored value and the result is stored at
     * once, under the scope's lock and the run's lease, so runs updating the same key at the same
     * time each build on the other's result; otherwise it is `get` then `set`.
     */
    update(key: string, update: (current: unknown) => unknown): Promise<unknown>;
  };
  /**
   * Pauses the invocation to ask a human; the answer given on resume becomes this call's result.
   * Never returns.
   */
  requestInput(question: string): never;
  /** Pauses the invocation on calls made inside this tool (an agent tool's child waiting for approval). Never returns. */
  pause(pending: PendingApproval[]): never;
  /** Present when the tool runs inside a runner's invocation. */
  invocation?: ToolInvocationInfo;
  /**
   * Why the agent's approval rules refuse what a file tool really opened for its path argument
   * `name` (`real`: absolute, links followed), judged as if the call had named it; undefined when
   * nothing refuses it. A file tool asks once the file or folder is open and before a byte moves,
   * so a folder swapped for a link after the call was approved cannot lead it past a deny rule, or
   * past what the allow rule that let it run without asking covers. `below`: a file found under
   * the folder the argument names (grep), which only deny rules judge. Absent outside an agent's
   * loop.
   */
  pathRefusal?(name: string, real: string, below?: boolean): string | undefined;
}

/** What a tool learns about the invocation it runs in (agent tools use it to start child sessions). */
export interface ToolInvocationInfo {
  sessionId: string;
  invocationId: string;
  branch: string;
  /** The store of the session, as an opaque value for agent tools. */
  store: unknown;
  /** The user of the invocation: an agent tool's child run shares their `user:` state too. */
  userId?: string;
  /** Streams an event of a child run to the caller without storing it in this session. */
  forward(event: unknown): void;
  /** The decisions a resumed invocation was given (agent tools pass theirs on to their child). */
  decisions: readonly ApprovalDecision[];
  /** Asks a human about a call, when the invocation can (agent tools let their child ask too). */
  onApproval?: RunOptions['onApproval'];
  /** The calling agent's path in the tree, root first (agent tools name where their child's errors happened). */
  agentPath: readonly string[];
}

/** Decides whether a particular call needs a human's approval before it runs. */
export type ApprovalRequirement = boolean | ((args: Record<string, unknown>, call: ToolCall) => boolean);

/** A function the model can call. */
export interface Tool<TParams = Record<string, unknown>, TResult = unknown> {
  name: string;
  description: string;
  /** JSON Schema of the arguments; calls are validated against it before `execute`. */
  parameters: JsonSchema;
  execute(params: TParams, context: ToolContext): Promise<TResult> | TResult;
  /** Pauses the run for approval before the call executes. */
  needsApproval?: ApprovalRequirement;
  /** Milliseconds one call may take; the agent's tool timeout applies when unset. */
  timeout?: number;
  /**
   * Safe to run again with the same arguments. A queued run whose worker stopped while this call ran
   * runs it again; any other interrupted call is reported to the model as interrupted instead.
   */
  idempotent?: boolean;
  /** Arguments whose value a shell runs as code: no approval rule may match them (a pattern cannot make a script safe). */
  shellArguments?: readonly string[];
  /**
   * Arguments holding a path the tool resolves from its folder: approval rules also read them as
   * that path (`./secret/a` as `secret/a`, links followed), so a spelling cannot slip past a rule.
   */
  pathArguments?: PathArguments;
  /** Arguments holding a URL the tool requests: approval rules also read them as it will (see `urlReadings`). */
  urlArguments?: readonly string[];
  /** The agent an agent tool runs ({@link agentTool}): a walk over a tree's tools reaches its tools too. */
  agent?: Agent;
}

/** Anything assignable to a tool, whatever its parameter and result types. */
// biome-ignore lint/suspicious/noExplicitAny: a tool list holds tools of any parameter type.
export type AnyTool = Tool<any, unknown>;

/**
 * Defines a tool with JSON Schema parameters.
 *
 * @example
 * const add = defineTool<{ a: number; b: number }>({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
 *   execute: ({ a, b }) => a + b,
 * });
 */
export function defineTool<TParams = Record<string, unknown>, TResult = unknown>(
  config: Tool<TParams, TResult>,
): Tool<TParams, TResult> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(config.name)) {
    throw new TypeError(
      `tool name "${config.name}" must be 1-64 letters, digits, "_" or "-" (what every provider accepts)`,
    );
  }
  const parameters =
    config.parameters && Object.keys(config.parameters).length > 0
      ? config.parameters
      : { type: 'object', properties: {} };
  return { ...config, parameters };
}

/** The part of a tool the model sees. */
export function toolDefinition(tool: AnyTool): ToolDefinition {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
