import type { InvocationCheckpoint } from './agent-config.js';
import { cutShort } from './cut-short.js';
import type { AgentEvent, PendingApproval } from './events.js';
import type { CallRecording } from './loop/recorded-call.js';
import { isRedactedCopy, KNOWN_REDACTION_MARKERS } from './loop/redacted-copy.js';
import type { ToolCall } from './messages.js';
import { sameJson } from './same-json.js';
import type { Session } from './session.js';

/**
 * Why the calls a paused session asks decisions for are not the calls a resume would run, or
 * undefined when they are. A resume runs (or answers) the calls of the model's last message, by
 * id; a person decides on the calls the checkpoint and its `approval_required` event show. A session
 * changed outside agentctl (an imported export, a file edited by hand) could show one call and run
 * another, so the three must agree before any decision is applied. `recordingOf` gives how the
 * named agent records the model's calls: without it, a call recorded redacted is held only to its tool.
 */
export function promisedCallsProblem(
  session: Session,
  checkpoint: InvocationCheckpoint,
  recordingOf?: (agent: string) => CallRecording | undefined,
): string | undefined {
  const events = session.events.filter((e) => e.invocationId === checkpoint.invocationId);
  // What `sessions show` and the UI show as waiting. A run the queue recovers after a crash waits
  // on the calls it was running, which no person was shown: only the calls the event lists are held to it.
  const last = events.findLast((e) => e.type === 'approval_required');
  const shown = last?.type === 'approval_required' ? last.pending : [];
  for (const p of checkpoint.pending) {
    const event = shown.find((s) => s.call?.id === p.call.id);
    if (event && !sameCall(event.call, p.call)) {
      return `the call ${p.call.id} waiting for a decision is ${describe(p.call)}, but the session's approval_required event shows ${describe(event.call)}`;
    }
    // A call inside an agent tool runs in the child session: childCallsProblem checks it there.
    if (p.via) continue;
    const made = modelCall(events, p.branch, p.call.id);
    if (!made)
      return `the call ${p.call.id} waiting for a decision is not among the model's calls of that invocation`;
    // The session records a call redacted; the checkpoint keeps what it runs with (shown in the event).
    if (
      made.argumentsRedacted
        ? !recordedFrom(made, p.call, recordingOf?.(p.agent), recordingOf !== undefined)
        : !sameCall(made, p.call)
    ) {
      // Markers changed since the pause (a `replacement`) are the one legitimate edit refused here.
      const redacted = made.argumentsRedacted
        ? ", recorded redacted (if the agent's redaction replacement changed since the pause, restore it to resume)"
        : '';
      return `the call ${p.call.id} waiting for a decision is ${describe(p.call)}, but the model's call ${p.call.id} is ${describe(made)}${redacted}`;
    }
  }
  return undefined;
}

/**
 * Why a call a paused session shows, made inside an agent tool, is not the call its child session
 * waits on (the child's own checks then hold it to the child's conversation), or undefined.
 * `children` are the paused session's child sessions.
 */
export function childCallsProblem(
  pending: readonly PendingApproval[],
  children: readonly Pick<Session, 'id' | 'checkpoint'>[],
): string | undefined {
  for (const p of pending) {
    if (!p.via) continue;
    let waiting: ToolCall | undefined;
    for (const child of children) {
      const checkpoint = child.checkpoint as InvocationCheckpoint | undefined;
      waiting = checkpoint?.pending?.find((c) => c.call?.id === p.call.id)?.call;
      if (waiting) break;
    }
    if (!waiting) return `no child session waits for the call ${p.call.id} (${describe(p.call)}) it shows`;
    if (!sameCall(waiting, p.call)) {
      return `the call ${p.call.id} waiting for a decision is ${describe(p.call)}, but the child session that would run it waits on ${describe(waiting)}`;
    }
  }
  return undefined;
}

// Whether `recorded`, marked redacted, is how the model's call `made` was recorded. The agent's rules
// as they are now give the exact copy; rules edited since the pause (a pattern added, a secret
// rotated) give another, so a copy that shows all the call's text but what one of the agent's
// markers hides holds too: what a marker hides is not in the session to be held to anything.
// Without the agent (an export being imported, whose rules and markers are unknown here) only the
// tool is checked: the resume checks the rest, with the agent.
function recordedFrom(
  recorded: ToolCall,
  made: ToolCall,
  recording: CallRecording | undefined,
  checked: boolean,
): boolean {
  if (recorded.id !== made.id || recorded.name !== made.name) return false;
  if (!checked) return true;
  if (recording) {
    const now = recording.record(made);
    if (now.argumentsRedacted && sameJson(now.arguments, recorded.arguments)) return true;
  }
  return isRedactedCopy(recorded.arguments, made.arguments, recording?.markers ?? KNOWN_REDACTION_MARKERS);
}

// Two calls are the same when their id, tool and arguments are.
function sameCall(a: ToolCall, b: ToolCall): boolean {
  return a.id === b.id && a.name === b.name && sameJson(a.arguments, b.arguments);
}

// The call of this id in the last assistant message of the paused agent's branch.
function modelCall(
  events: readonly AgentEvent[],
  branch: string | undefined,
  id: string,
): ToolCall | undefined {
  const last = events.findLast(
    (e) =>
      e.type === 'message' && e.message.role === 'assistant' && (branch === undefined || e.branch === branch),
  );
  return last?.type === 'message' ? last.message.toolCalls?.find((call) => call.id === id) : undefined;
}

// The call as a person reads it: its tool and arguments, cut short.
function describe(call: { name: string; arguments?: unknown }): string {
  const args = call.arguments === undefined ? '' : JSON.stringify(call.arguments);
  return `${call.name}(${cutShort(args, 200)})`;
}
