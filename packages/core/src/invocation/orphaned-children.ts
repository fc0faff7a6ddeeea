import type { InvocationCheckpoint } from '../agent-config.js';
import { cutShort } from '../cut-short.js';
import type { ErrorBlame } from '../errors.js';
import type { AgentEvent } from '../events.js';
import type { Session, SessionStore } from '../session.js';
import { SessionLeaseLostError } from '../session-lease.js';
import { emptyUsage } from '../usage.js';
import { eventOf } from './event-of.js';
import { holdSession } from './session-lease.js';

/** How a parent's resume ended, for the children it left waiting. */
export interface ParentOutcome {
  /** The parent session, with the events of its resume. */
  session: Session;
  invocationId: string;
  /** Still paused: its calls that wait again (through a child) keep that child. */
  paused: boolean;
  /** The error the resume ended in, when it did. */
  error?: { code: string; message: string };
}

/**
 * Ends the child sessions (of agent tools) that a parent's resume left paused with nothing that
 * will ever resume them: the parent answered the call that started the child without running it
 * again (its agent tool was removed from the parent's YAML, renamed), ended without a pause, or
 * failed (a resume clears the pause, so a later one cannot reach the child either). Each such
 * child gets an `error` (ABORTED, saying why) and a `run_end` with status `error`, its pause is
 * cleared, and the two events go to `forward` so whoever watches the parent learns of it. A
 * child busy with another invocation is left as it is.
 */
export async function closeOrphanedChildren(
  store: SessionStore,
  children: readonly Session[],
  parent: ParentOutcome,
  forward: (event: AgentEvent) => void,
): Promise<void> {
  for (const child of children) {
    const why = orphanReason(child, parent);
    if (why !== undefined) await endPaused(store, child, parent.session.id, why, forward);
  }
}

// Ends one paused session, then the paused sessions beneath it (agent tools inside agent tools),
// which waited on it and so can never be resumed either.
async function endPaused(
  store: SessionStore,
  child: Session,
  parentId: string,
  why: { message: string; blame: ErrorBlame },
  forward: (event: AgentEvent) => void,
): Promise<void> {
  const held = await holdSession(store, child.id, {
    holder: `the resume of session ${parentId}`,
    onLost: () => undefined,
  }).catch(() => undefined);
  if (!held) return;
  try {
    // Read again under the lease: only a child still paused as it was is ended.
    const current = await store.get(child.id);
    const checkpoint = current?.checkpoint as InvocationCheckpoint | undefined;
    if (!current || checkpoint?.invocationId !== (child.checkpoint as InvocationCheckpoint).invocationId)
      return;
    const prefix = `${checkpoint.invocationId}.${checkpoint.attempts ?? 0}.`;
    const branch = current.events.at(-1)?.branch ?? checkpoint.agent;
    const at = Date.now();
    const events = [
      eventOf(`${prefix}0`, checkpoint.invocationId, branch, checkpoint.agent, at, 'error', {
        code: 'ABORTED',
        message: why.message,
        context: { blame: why.blame, retryable: false, parentSessionId: parentId },
      }),
      eventOf(`${prefix}1`, checkpoint.invocationId, branch, checkpoint.agent, at, 'run_end', {
        status: 'error',
        output: '',
        usage: emptyUsage(),
        duration: 0,
      }),
    ];
    // As a resume does: the pause goes first, so a crash between the two leaves it ended, never
    // resumable twice. Each write is fenced by the lease: one lost meanwhile (this process paused
    // past its expiry, another taking the child) writes nothing, and the child is its new holder's.
    try {
      await held.write((fence) => store.setCheckpoint(child.id, undefined, fence));
      await held.write((fence) => store.append(child.id, events, fence));
    } catch (error) {
      if (error instanceof SessionLeaseLostError) return;
      throw error;
    }
    for (const event of events) forward(event);
  } finally {
    await held.release();
  }
  const below = (await store.list({ parentId: child.id })).filter((c) => c.paused);
  for (const summary of below) {
    const grandchild = await store.get(summary.id);
    if (!grandchild?.checkpoint) continue;
    const message = `cancelled: session ${child.id}, which was waiting on this session, was ended (${cutShort(why.message, 200)})`;
    await endPaused(store, grandchild, child.id, { message, blame: why.blame }, forward);
  }
}

// Why nothing will resume `child` any more, or undefined while its parent still waits on it.
function orphanReason(
  child: Session,
  parent: ParentOutcome,
): { message: string; blame: ErrorBlame } | undefined {
  const callId = child.parentCallId;
  const parentId = parent.session.id;
  const answered = parent.session.events.findLast(
    (e) => e.type === 'tool_result' && e.callId === callId && e.invocationId === parent.invocationId,
  );
  if (answered?.type === 'tool_result') {
    // The parent's call got a result without the child: its agent tool is gone from the parent's YAML.
    const message = `cancelled: session ${parentId} went on without this session: its call ${callId} that was waiting on it ended with "${cutShort(answered.content, 200)}"`;
    return { message, blame: 'config' };
  }
  if (parent.error) {
    const message = `cancelled: the resume of session ${parentId} ended in an error (${parent.error.code}: ${cutShort(parent.error.message, 200)}) before it resumed this session, and nothing can resume it now`;
    return { message, blame: 'cancel' };
  }
  if (parent.paused) return undefined;
  const message = `cancelled: session ${parentId} ended its run without resuming this session (its call ${callId} was left behind)`;
  return { message, blame: 'cancel' };
}
