import type { AgentEvent, ToolCall } from '@agentctl/core';
import type { StoredSession } from '@agentctl/store-file';
import { printable } from '../../printable.js';

const MAX_LINE = 200;

/**
 * A readable transcript of a session: what the user said, what agents answered, tool calls and
 * their results on one line each. Built from the event log; sessions with only saved messages
 * (written through the memory interface) fall back to those.
 */
export function formatTranscript(session: StoredSession): string[] {
  const lines: string[] = [];
  const calls = callsOf(session.events);
  for (const event of session.events) {
    const line = eventLine(event, calls);
    if (line !== undefined) lines.push(line);
  }
  if (lines.length === 0) {
    for (const m of session.messages ?? []) {
      if (m.content) lines.push(`${m.role}: ${clip(m.content)}`);
      for (const call of m.toolCalls ?? [])
        lines.push(`  → ${call.name}(${clip(JSON.stringify(call.arguments))})`);
    }
  }
  return lines;
}

// What the log says of each tool call, by invocation and call id: shown by a `tool_call` event,
// answered, or waiting for a decision. By invocation too: a model may use the same call id again
// in a later run (the offline models do), and that run's result answers only its own call.
interface CallsSeen {
  shown: Set<string>;
  answered: Set<string>;
  waiting: Set<string>;
}

const callKey = (invocationId: string, callId: string) => `${invocationId}\u0000${callId}`;

function callsOf(events: readonly AgentEvent[]): CallsSeen {
  const seen: CallsSeen = { shown: new Set(), answered: new Set(), waiting: new Set() };
  for (const event of events) {
    const key = (callId: string) => callKey(event.invocationId, callId);
    if (event.type === 'tool_call') seen.shown.add(key(event.call.id));
    else if (event.type === 'tool_result') seen.answered.add(key(event.callId));
    else if (event.type === 'approval_required')
      for (const p of event.pending) seen.waiting.add(key(p.call.id));
  }
  return seen;
}

// A call the log holds no result for, and that waits for no decision: its run stopped (killed,
// or cut off) before the call ended. Said, or the transcript reads as if the model never asked.
function callLines(call: ToolCall, calls: CallsSeen, invocationId: string): string {
  const line = `  → ${printable(call.name)}(${clip(JSON.stringify(call.arguments))})`;
  const key = callKey(invocationId, call.id);
  if (calls.answered.has(key) || calls.waiting.has(key)) return line;
  return `${line}\n    ✗ no result: the run stopped before this call finished`;
}

function eventLine(event: AgentEvent, calls: CallsSeen): string | undefined {
  switch (event.type) {
    case 'message': {
      const { message } = event;
      if (message.role === 'tool') return undefined;
      const who = printable(message.role === 'assistant' ? event.author : message.role);
      // Calls are shown by their own events; one the log has no event for (a run killed right
      // after the model asked for it) is shown from the message.
      const unshown = (message.toolCalls ?? []).filter(
        (call) => !calls.shown.has(callKey(event.invocationId, call.id)),
      );
      const lines = message.content ? [`${who}: ${clip(message.content)}`] : [];
      for (const call of unshown) lines.push(callLines(call, calls, event.invocationId));
      return lines.length > 0 ? lines.join('\n') : undefined;
    }
    case 'tool_call':
      return callLines(event.call, calls, event.invocationId);
    case 'tool_result':
      return `  ← ${printable(event.name)}${event.isError ? ' failed' : ''}: ${clip(event.content)}`;
    case 'approval_required':
      return event.pending
        .map((p) =>
          p.kind === 'input'
            ? `  ⏸ waiting for an answer (${printable(p.call.id)}): ${clip(p.reason ?? '')}`
            : `  ⏸ waiting for approval (${printable(p.call.id)}): ${printable(p.call.name)}`,
        )
        .join('\n');
    case 'transfer':
      return `  ⇢ transfer ${printable(event.from)} → ${printable(event.to)}`;
    case 'escalate':
      return `  ⇡ escalate${event.reason ? `: ${clip(event.reason)}` : ''}`;
    case 'error':
      return `  ! ${printable(String(event.code))}: ${clip(event.message)}`;
    case 'run_end':
      return event.status === 'complete' ? undefined : `  (run ended: ${printable(String(event.status))})`;
    default:
      return undefined;
  }
}

/** One line, cut to a readable length. */
function clip(text: string): string {
  const flat = printable(text.replace(/\s*\n\s*/g, ' ⏎ '));
  return flat.length > MAX_LINE ? `${flat.slice(0, MAX_LINE - 1)}…` : flat;
}
