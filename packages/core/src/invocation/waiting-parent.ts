import type { InvocationCheckpoint } from '../agent-config.js';
import type { Session, SessionStore } from '../session.js';

/**
 * The session a paused child session (an agent tool's) waits inside: the top-most of its parents
 * whose pause goes through it, or undefined when no parent waits on it. Its calls are decided by
 * resuming that session: resumed on its own, the child would run them, and the parent, still
 * waiting on a call no child holds any more, could never be resumed.
 */
export async function waitingParent(store: SessionStore, session: Session): Promise<Session | undefined> {
  let top: Session | undefined;
  for (let child = session; child.parentId !== undefined; ) {
    const parent = await store.get(child.parentId);
    const pending = (parent?.checkpoint as InvocationCheckpoint | undefined)?.pending;
    if (!parent || !pending?.some((p) => p.via?.callId === child.parentCallId)) break;
    top = parent;
    child = parent;
  }
  return top;
}
