import type { Message, Pending, RunEvent, ToolCall, Usage } from './api-types.js';

/** What a timeline entry shares: when, which agent, and how deep in the tree (for indentation). */
interface EntryBase {
  time: number;
  agent: string;
  branch: string;
  depth: number;
}

/** One line of a session's timeline. */
export type TimelineEntry = EntryBase &
  (
    | { kind: 'agent_start' }
    | { kind: 'agent_end'; output: string }
    | {
        kind: 'model';
        model?: string;
        usage: Usage;
        /** Milliseconds of the call (absent in sessions written before it was recorded). */
        duration?: number;
        /** The conversation up to this call. */
        request: Message[];
        /** The assistant message it answered with. */
        response?: Message;
      }
    | {
        kind: 'tool';
        call: ToolCall;
        result?: { content: string; isError: boolean; duration: number; errorCode?: string };
      }
    | { kind: 'state'; delta: Record<string, unknown> }
    | { kind: 'transfer'; from: string; to: string }
    | { kind: 'approval'; pending: Pending[] }
    | { kind: 'fallback'; from: string; to: string; reason: string }
    | { kind: 'error'; code: string; message: string }
  );

/** One invocation (a user message to its answer) and what happened in it, in order. */
export interface Invocation {
  id: string;
  input?: string;
  start: number;
  end?: { status: string; output: string; duration: number; usage: Usage };
  entries: TimelineEntry[];
}

/**
 * A session's events as a timeline: grouped by invocation; each model call (a `usage` event) paired
 * with the assistant message that follows it and given the conversation before it as its request;
 * each tool call paired with its result; state changes, transfers, approvals and errors in place.
 */
export function buildTimeline(events: readonly RunEvent[]): Invocation[] {
  const invocations = new Map<string, Invocation>();
  const conversation: Message[] = [];
  const tools = new Map<string, Extract<TimelineEntry, { kind: 'tool' }>>();
  // The last model call of each branch still waiting for its assistant message.
  const answering = new Map<string, Extract<TimelineEntry, { kind: 'model' }>>();

  for (const event of events) {
    let invocation = invocations.get(event.invocationId);
    if (!invocation) {
      invocation = { id: event.invocationId, start: event.time, entries: [] };
      invocations.set(event.invocationId, invocation);
    }
    const base: EntryBase = {
      time: event.time,
      agent: event.author,
      branch: event.branch,
      depth: event.branch ? event.branch.split('.').length - 1 : 0,
    };
    const add = (entry: TimelineEntry) => invocation.entries.push(entry);
    const field = <T>(name: string) => event[name] as T;

    switch (event.type) {
      case 'run_start':
        invocation.input = field<string>('input');
        conversation.push({ role: 'user', content: invocation.input });
        break;
      case 'run_end':
        invocation.end = {
          status: field('status'),
          output: field('output'),
          duration: field('duration'),
          usage: field('usage'),
        };
        break;
      case 'agent_start':
        add({ ...base, kind: 'agent_start', agent: field('agent') });
        break;
      case 'agent_end':
        add({ ...base, kind: 'agent_end', agent: field('agent'), output: field('output') });
        break;
      case 'usage': {
        const entry: TimelineEntry = {
          ...base,
          kind: 'model',
          model: field('model'),
          usage: field('usage'),
          duration: field('duration'),
          request: [...conversation],
        };
        answering.set(event.branch, entry);
        add(entry);
        break;
      }
      case 'message': {
        const message = field<Message>('message');
        // The user's input is already in the conversation (run_start).
        if (message.role === 'user' && conversation.at(-1)?.content === message.content) break;
        conversation.push(message);
        const call = answering.get(event.branch);
        if (message.role === 'assistant' && call) {
          call.response = message;
          answering.delete(event.branch);
        }
        break;
      }
      case 'tool_call': {
        const entry: TimelineEntry = { ...base, kind: 'tool', call: field('call') };
        tools.set(entry.call.id, entry);
        add(entry);
        break;
      }
      case 'tool_result': {
        const entry = tools.get(field('callId'));
        const result = {
          content: field<string>('content'),
          isError: field<boolean>('isError'),
          duration: field<number>('duration'),
          errorCode: field<string | undefined>('errorCode'),
        };
        if (entry) entry.result = result;
        else
          add({
            ...base,
            kind: 'tool',
            call: { id: field('callId'), name: field('name'), arguments: {} },
            result,
          });
        break;
      }
      case 'state_delta':
        add({ ...base, kind: 'state', delta: field('delta') });
        continue;
      case 'transfer':
        add({ ...base, kind: 'transfer', from: field('from'), to: field('to') });
        break;
      case 'approval_required':
        add({ ...base, kind: 'approval', pending: field('pending') });
        break;
      case 'model_fallback':
        add({ ...base, kind: 'fallback', from: field('from'), to: field('to'), reason: field('reason') });
        break;
      case 'error':
        add({ ...base, kind: 'error', code: field('code'), message: field('message') });
        break;
    }
    // Any event may carry state changes (an output_key, a tool's state write).
    if (event.stateDelta && Object.keys(event.stateDelta).length > 0)
      add({ ...base, kind: 'state', delta: event.stateDelta });
  }
  return [...invocations.values()];
}
