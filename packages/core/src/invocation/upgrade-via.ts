import type { InvocationCheckpoint } from '../agent-config.js';
import type { Session } from '../session.js';

/**
 * Points each pending call of a pause made by an earlier version at this session's own call.
 * Before, a call waiting two agent tools deep named the innermost call it went through (a call of
 * a child session) as its `via`, which no agent of this session makes again on resume: the call
 * would be dropped. The right one is the call of this session that started the child session
 * waiting on it. `children` are the paused child sessions; the checkpoint is changed in place.
 */
export function upgradeVia(
  session: Session,
  checkpoint: InvocationCheckpoint,
  children: readonly Session[],
): void {
  for (const pending of checkpoint.pending) {
    const via = pending.via;
    if (!via || ownCall(session, via.callId)) continue;
    const child = children.find((c) =>
      (c.checkpoint as InvocationCheckpoint | undefined)?.pending?.some(
        (p) => p.call?.id === pending.call.id,
      ),
    );
    const made = child?.parentCallId && ownCall(session, child.parentCallId);
    if (made) pending.via = { callId: made.call.id, agent: made.author, branch: made.branch };
  }
}

// The tool call of this session with that id (the events of the pause are the session's last).
function ownCall(session: Session, callId: string) {
  const found = session.events.findLast((e) => e.type === 'tool_call' && e.call.id === callId);
  return found?.type === 'tool_call' ? found : undefined;
}
