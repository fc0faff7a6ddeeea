import { AgentError, type InvocationResult, isAgentError, type Message } from '@agentctl/core';
import type { Context } from 'hono';
import { HttpError } from './http-error.js';
import { type InvokeContext, invoke, type StartedRun } from './invoke.js';

/** The header that continues a stored session on `/v1/chat/completions` and `/v1/responses`. */
export const SESSION_HEADER = 'x-agentctl-session';

/**
 * Runs the agent `model` names on a conversation whose last turn (the caller checked) is the user's.
 * With the session header the stored session is its history, and the header is answered with the
 * session's id; without it, the earlier turns are the history and the run stops when the client goes.
 */
export async function invokeConversation(
  c: Context,
  context: InvokeContext,
  body: { model: string; user?: unknown },
  turns: Pick<Message, 'role' | 'content'>[],
): Promise<StartedRun> {
  const sessionId = c.req.header(SESSION_HEADER);
  const run = await invoke(context, {
    agent: body.model,
    input: turns.at(-1)?.content ?? '',
    sessionId,
    userId: typeof body.user === 'string' ? body.user : undefined,
    history: sessionId ? undefined : turns.slice(0, -1),
    signal: goneSignal(c, sessionId),
  });
  if (sessionId) c.header(SESSION_HEADER, run.sessionId);
  return run;
}

// What stops a run of the OpenAI-compatible endpoint whose client is gone: nobody can read a
// stateless answer then, streamed or not. A stored session's run (`sessionId`) goes on, so its
// answer is there for the next request.
function goneSignal(c: Context, sessionId: string | undefined): AbortSignal | undefined {
  if (sessionId) return undefined;
  const gone = new AbortController();
  const request = c.req.raw.signal;
  const stop = () => gone.abort(new AgentError('the client closed the connection', 'ABORTED'));
  if (request.aborted) stop();
  else request.addEventListener('abort', stop, { once: true });
  return gone.signal;
}

/**
 * A paused run as the answer tells it: the calls waiting and the session to decide them in. A
 * request without the session header kept its conversation in memory only: nothing can decide its
 * calls, and the answer says so rather than naming a session that is gone.
 */
export function pauseOf(result: InvocationResult, sessionId: string | undefined): Record<string, unknown> {
  if (sessionId) return { status: 'paused', pending: result.pending, sessionId };
  return {
    status: 'paused',
    pending: result.pending,
    sessionId: null,
    message: `this request kept no session, so these calls cannot be decided: send the ${SESSION_HEADER} header to run an agent that asks for approval, then POST /sessions/{id}/decisions`,
  };
}

/** The final answer's finish as OpenAI names it: `length` or `content_filter` when it was cut short. */
export function finishOf(result: InvocationResult): 'stop' | 'length' | 'content_filter' {
  const last = result.messages.findLast((m) => m.role === 'assistant');
  return last?.cutShort ?? 'stop';
}

/** A failed run as an HTTP error: its failure is already shielded (see `invoke`); anything else is the server's own. */
export function runFailure(error: Error, context: InvokeContext): HttpError {
  if (isAgentError(error))
    return new HttpError(error.code === 'TIMEOUT' ? 504 : 502, error.code, error.message);
  return new HttpError(500, 'internal', `internal error (ref ${context.shield.internal(error)})`);
}
