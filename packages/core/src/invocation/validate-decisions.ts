import type { Agent } from '../agent.js';
import type { ApprovalDecision, InvocationCheckpoint } from '../agent-config.js';
import { findAgent } from '../agent-tree.js';
import { cutShort } from '../cut-short.js';
import { ChangedCallError, UsageError } from '../errors.js';
import type { PendingApproval } from '../events.js';
import type { ToolCall } from '../messages.js';
import { sameJson } from '../same-json.js';
import type { Session } from '../session.js';

/**
 * Checks a resume's decisions against the session's pause before anything runs: the session is
 * paused, in an agent of `root`'s tree, on every call decided, each decided as it can be (a
 * question answered, an approval approved or denied). Throws a {@link UsageError} saying what is wrong.
 */
export function validateDecisions(
  session: Session,
  checkpoint: InvocationCheckpoint | undefined,
  decisions: readonly ApprovalDecision[],
  root: Agent,
): void {
  const sessionId = session.id;
  if (!checkpoint) {
    // A resume clears the checkpoint before it runs the calls (run at most once): one killed
    // halfway leaves a session neither paused nor ended, and the same --approve finds nothing.
    const last = session.events.at(-1);
    const cut = last !== undefined && last.type !== 'run_end';
    // A resume goes on with the invocation it resumes, whose pause is in the log before it.
    const resumed =
      cut &&
      session.events.some((e) => e.invocationId === last.invocationId && e.type === 'approval_required');
    throw new UsageError(
      !cut
        ? `session ${sessionId} is not paused; there is nothing to approve or deny`
        : `session ${sessionId} is not paused: its last run stopped before it ended (its process was killed?)${resumed ? ', and the decisions it was carrying out went with it' : ''}; send a new prompt to go on (the model is told the calls left without a result were cancelled)`,
    );
  }
  // Another agent's tree would start elsewhere and never run (or deny) the calls decided here.
  if (!findAgent(root, checkpoint.agent))
    throw new UsageError(
      `session ${sessionId} is paused in agent ${checkpoint.agent}, which agent ${root.name} does not contain; resume it with ${checkpoint.agent}`,
    );
  const ids = new Set(checkpoint.pending.map((p) => p.call.id));
  // A resume deciding nothing would clear the pause and go on to the model with the calls
  // unanswered: they would end up cancelled without anyone having said so.
  if (decisions.length === 0 && ids.size > 0) {
    const calls = checkpoint.pending.map((p) => `${p.call.id} (${p.call.name})`).join(', ');
    throw new UsageError(
      `session ${sessionId} is paused waiting for a decision on ${calls}, and this resume gives none: approve, deny or answer at least one`,
    );
  }
  for (const decision of decisions) {
    if (!ids.has(decision.callId)) {
      throw new UsageError(
        `session ${sessionId} has no pending tool call ${decision.callId} (pending: ${[...ids].join(', ')})`,
      );
    }
    const pending = checkpoint.pending.find((p) => p.call.id === decision.callId)!;
    checkSeenCall(sessionId, pending.call, decision);
    checkDecisionKind(pending, decision);
  }
}

// A page left open on an earlier pause may decide an id the model has used again since: what runs
// must be what the person was shown.
function checkSeenCall(sessionId: string, call: ToolCall, decision: ApprovalDecision): void {
  const { seen } = decision;
  if (!seen || (seen.name === call.name && sameJson(seen.arguments, call.arguments))) return;
  throw new ChangedCallError(
    sessionId,
    call.id,
    `${call.name}(${cutShort(JSON.stringify(call.arguments) ?? '', 200)})`,
  );
}

// An input request is answered (or refused), never approved: approving would run the tool again,
// and it would only ask again. An approval gets no answer.
function checkDecisionKind(pending: PendingApproval, decision: ApprovalDecision): void {
  const asks = pending.kind === 'input';
  if (asks && decision.approve && decision.input === undefined) {
    throw new UsageError(
      `tool call ${decision.callId} asks a question, not for approval (${pending.reason ?? 'no question'}): give it an answer`,
    );
  }
  if (!asks && decision.input !== undefined) {
    throw new UsageError(
      `tool call ${decision.callId} waits for approval, not for an answer: approve or deny it`,
    );
  }
}
