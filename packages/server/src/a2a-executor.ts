import { TaskState } from '@a2a-js/sdk';
import { TaskNotCancelableError } from '@a2a-js/sdk/errors';
import {
  AgentEvent as A2AEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { ApprovalDecision, InvocationResult, PendingApproval } from '@agentctl/core';
import { AgentError, isAgentError } from '@agentctl/core';
import { textMessage, textOf, textPart } from './a2a-parts.js';
import { HttpError } from './http-error.js';
import { type InvokeContext, invoke } from './invoke.js';
import { ownWords } from './own-words.js';

/**
 * Runs one agent for A2A: the task's context id is the session id, so the next message of the
 * same context continues it. A paused run is the `input-required` state; the next message answers
 * it (an input request gets the text; an approval is given by "yes", any other text denies it
 * with that text as the reason).
 */
export class AgentctlExecutor implements AgentExecutor {
  readonly #agent: string;
  readonly #context: InvokeContext;
  readonly #running = new Map<string, AbortController>();
  // Tasks a request has claimed before their run starts (see `claim`).
  readonly #claimed = new Set<string>();
  // Tasks whose run paused for input, by task id: their context id, for a cancel.
  readonly #waiting = new Map<string, string>();

  constructor(agent: string, context: InvokeContext) {
    this.#agent = agent;
    this.#context = context;
  }

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = request;
    const user = request.userMessage;
    const text = textOf(user.parts).trim();
    bus.publish(
      A2AEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        artifacts: request.task?.artifacts ?? [],
        history: request.task ? request.task.history : [user],
        metadata: undefined,
      }),
    );
    const controller = new AbortController();
    this.#running.set(taskId, controller);
    this.#waiting.delete(taskId);
    const status = (state: TaskState, message?: string, metadata?: Record<string, unknown>) =>
      bus.publish(
        A2AEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: message === undefined ? undefined : textMessage('agent', message, contextId, taskId),
            timestamp: now(),
          },
          metadata,
        }),
      );
    try {
      const pending = await this.#pending(contextId);
      // What a context waits for is answered in the task that asked: a new task would leave that one
      // waiting for ever, and its next message would then start an unrelated run.
      const asking = pending.length > 0 ? this.#waitingIn(contextId) : undefined;
      if (asking !== undefined && asking !== taskId)
        return status(
          TaskState.TASK_STATE_FAILED,
          `context ${contextId} waits for an answer in task ${asking}: send it there (with that taskId)`,
        );
      // Only text reaches an agent: a file or data part would be dropped unseen, so it is refused.
      // A message with no text is no prompt, and no answer: run, it would store an empty user turn,
      // or refuse a pending call with an empty reason.
      const unread = user.parts.findIndex((part) => part.content?.$case !== 'text');
      if (unread >= 0 || text === '') {
        const refusal =
          unread >= 0
            ? `part ${unread} of the message is ${user.parts[unread].content?.$case ?? 'empty'}: only text parts are read`
            : 'the message has no text: send the prompt (or the answer) as a text part';
        if (pending.length === 0) return status(TaskState.TASK_STATE_FAILED, refusal);
        // What waits for an answer still does: the task asks again.
        this.#waiting.set(taskId, contextId);
        return status(TaskState.TASK_STATE_INPUT_REQUIRED, `${refusal}\n${question(pending)}`, { pending });
      }
      const run = await invoke(this.#context, {
        agent: this.#agent,
        sessionId: contextId,
        signal: controller.signal,
        ...(pending.length > 0 ? { decisions: decide(pending, text) } : { input: text }),
      });
      let artifactId = '';
      let chunks = 0;
      const said = ownWords();
      for await (const event of run.events) {
        if (event.type === 'run_start') artifactId ||= `output-${event.invocationId}`;
        if (!said(event)) continue;
        bus.publish(
          A2AEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId,
              name: 'output',
              description: `${this.#agent}'s answer`,
              parts: [textPart(event.text)],
              metadata: undefined,
              extensions: [],
            },
            append: chunks++ > 0,
            lastChunk: false,
            metadata: undefined,
          }),
        );
      }
      const result = (await run.result) as InvocationResult;
      if (result.status === 'paused') {
        this.#waiting.set(taskId, contextId);
        status(TaskState.TASK_STATE_INPUT_REQUIRED, question(result.pending ?? []), {
          pending: result.pending ?? [],
        });
      } else {
        status(TaskState.TASK_STATE_COMPLETED, result.output, { usage: result.usage });
      }
    } catch (error) {
      // A cancel (the caller's, a shutdown) is the canceled state; a run the server lost (its store
      // failed under it) failed.
      if (isAgentError(error) && error.code === 'ABORTED' && error.blame === 'cancel')
        status(TaskState.TASK_STATE_CANCELED, error.message);
      else status(TaskState.TASK_STATE_FAILED, failureText(error, this.#context));
    } finally {
      this.#running.delete(taskId);
      bus.finished();
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.#running.get(taskId);
    // The run ends as ABORTED (its session valid) and `execute` publishes the canceled state, with
    // this reason as its message and the session's error.
    if (running)
      return running.abort(
        new AgentError(`task ${taskId} was canceled by its A2A client (tasks/cancel)`, 'ABORTED'),
      );
    // A task waiting for input has no run to stop: it is canceled here, and its session stays
    // paused (valid: the context's next message answers what it waits for).
    const contextId = this.#waiting.get(taskId);
    if (contextId === undefined) throw new TaskNotCancelableError(`task ${taskId} is not running`);
    this.#waiting.delete(taskId);
    bus.publish(
      A2AEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: textMessage('agent', 'canceled while waiting for input', contextId, taskId),
          timestamp: now(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  };

  /**
   * Claims `taskId` for one request's message, false when a run of that task is under way or
   * another request has claimed it: the SDK gives every execution of a task one event bus, so a
   * second execution's outcome would be told to the first one's caller too.
   */
  claim(taskId: string): boolean {
    if (this.#running.has(taskId) || this.#claimed.has(taskId)) return false;
    this.#claimed.add(taskId);
    return true;
  }

  /** Gives a {@link claim} back once its request is answered (a run it started holds the task itself). */
  release(taskId: string): void {
    this.#claimed.delete(taskId);
  }

  // The task of this process waiting for input in a context, if any.
  #waitingIn(contextId: string): string | undefined {
    for (const [taskId, waitingContext] of this.#waiting) if (waitingContext === contextId) return taskId;
    return undefined;
  }

  async #pending(sessionId: string): Promise<PendingApproval[]> {
    const lease = this.#context.source.lease(this.#agent);
    if (!lease) return [];
    try {
      const session = await lease.store.get(sessionId).catch(() => undefined);
      return (session?.checkpoint as { pending?: PendingApproval[] } | undefined)?.pending ?? [];
    } finally {
      lease.release();
    }
  }
}

/** The next message answers every pending call: text for input requests, yes/no for approvals. */
function decide(pending: PendingApproval[], text: string): ApprovalDecision[] {
  const yes = /^\s*(y|yes|approve|approved|ok|allow)\s*[.!]?\s*$/i.test(text);
  return pending.map((p) => {
    if (p.kind === 'input') return { callId: p.call.id, approve: true, input: text };
    return yes ? { callId: p.call.id, approve: true } : { callId: p.call.id, approve: false, reason: text };
  });
}

function question(pending: PendingApproval[]): string {
  return pending
    .map((p) =>
      p.kind === 'input'
        ? (p.reason ?? `${p.call.name} asks for input`)
        : `${p.call.name}(${JSON.stringify(p.call.arguments)}) needs approval: answer "yes" to run it, anything else to refuse it (your words are the reason)`,
    )
    .join('\n');
}

// A run's failure is already shielded (see `invoke`); anything else is the server's own.
function failureText(error: unknown, context: InvokeContext): string {
  if (error instanceof HttpError || isAgentError(error)) return error.message;
  return `internal error (ref ${context.shield.internal(error)})`;
}

function now(): string {
  return new Date().toISOString();
}
