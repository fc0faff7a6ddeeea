import type { AgentEvent } from '@agentctl/core';
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
  for (const event of session.events) {
    const line = eventLine(event);
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

function eventLine(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'message': {
      const { message } = event;
      // Tool calls and results have their own events; the message only adds text.
      if (message.role === 'tool' || !message.content) return undefined;
      const who = message.role === 'assistant' ? event.author : message.role;
      return `${who}: ${clip(message.content)}`;
    }
    case 'tool_call':
      return `  → ${event.call.name}(${clip(JSON.stringify(event.call.arguments))})`;
    case 'tool_result':
      return `  ← ${event.name}${event.isError ? ' failed' : ''}: ${clip(event.content)}`;
    case 'approval_required':
      return event.pending
        .map((p) =>
          p.kind === 'input'
            ? `  ⏸ waiting for an answer (${p.call.id}): ${clip(p.reason ?? '')}`
            : `  ⏸ waiting for approval (${p.call.id}): ${p.call.name}`,
        )
        .join('\n');
    case 'transfer':
      return `  ⇢ transfer ${event.from} → ${event.to}`;
    case 'escalate':
      return `  ⇡ escalate${event.reason ? `: ${clip(event.reason)}` : ''}`;
    case 'error':
      return `  ! ${event.code}: ${clip(event.message)}`;
    case 'run_end':
      return event.status === 'complete' ? undefined : `  (run ended: ${event.status})`;
    default:
      return undefined;
  }
}

/** One line, cut to a readable length. */
function clip(text: string): string {
  const flat = printable(text.replace(/\s*\n\s*/g, ' ⏎ '));
  return flat.length > MAX_LINE ? `${flat.slice(0, MAX_LINE - 1)}…` : flat;
}
