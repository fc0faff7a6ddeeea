import type { AgentEvent, Message, PendingApproval, ToolCall, UsageStats } from './api-types.js';

/** What a timeline entry shares: when, which agent, and how deep in the tree (for indentation). */
interface EntryBase {
  time: number;
  agent: string;
  branch: string;
  depth: number;
}

/** A tool call and, once it came, its result. */
export interface ToolEntry extends EntryBase {
  kind: 'tool';
  call: ToolCall;
  result?: { content: string; isError: boolean; duration: number; errorCode?: string };
}

/** A model call: its usage event, the conversation before it and the assistant message it returned. */
export interface ModelEntry extends EntryBase {
  kind: 'model';
  model?: string;
  usage: UsageStats;
  /** Milliseconds of the call (absent in sessions written before it was recorded). */
  duration?: number;
  /** The conversation up to this call. */
  request: Message[];
  /** The assistant message it answered with. */
  response?: Message;
}

/** One line of a session's timeline. */
export type TimelineEntry =
  | ModelEntry
  | ToolEntry
  | (EntryBase &
      (
        | { kind: 'agent_start' }
        | { kind: 'agent_end'; output: string }
        | { kind: 'state'; delta: Record<string, unknown> }
        | { kind: 'transfer'; from: string; to: string }
        | { kind: 'approval'; pending: PendingApproval[] }
        | { kind: 'resumed' }
        | { kind: 'fallback'; from: string; to: string; reason: string }
        | { kind: 'error'; code: string; message: string }
      ));

/** One invocation (a user message to its answer) and what happened in it, in order. */
export interface Invocation {
  id: string;
  input?: string;
  start: number;
  /** How the last run ended; `duration` adds up the runs of a resumed invocation. */
  end?: { status: string; output: string; duration: number; usage: UsageStats };
  entries: TimelineEntry[];
}

/**
 * A session's events as a timeline: grouped by invocation; each model call (a `usage` event) paired
 * with the assistant message that follows it and given the conversation before it as its request;
 * each tool call paired with its result; state changes, transfers, approvals and errors in place.
 */
export function buildTimeline(events: readonly AgentEvent[]): Invocation[] {
  const invocations = new Map<string, Invocation>();
  const conversation: Message[] = [];
  const tools = new Map<string, ToolEntry>();
  // The last model call of each branch still waiting for its assistant message.
  const answering = new Map<string, ModelEntry>();

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

    switch (event.type) {
      case 'run_start':
        // A paused invocation resumes under the same id, starting again with the same input.
        if (invocation.input !== undefined) add({ ...base, kind: 'resumed' });
        else {
          invocation.input = event.input;
          conversation.push({ role: 'user', content: event.input });
        }
        break;
      case 'run_end':
        // A resumed invocation ran twice: its time is both runs' (not the wait for a person between).
        invocation.end = {
          status: event.status,
          output: event.output,
          duration: (invocation.end?.duration ?? 0) + event.duration,
          usage: event.usage,
        };
        break;
      case 'agent_start':
        add({ ...base, kind: 'agent_start', agent: event.agent });
        break;
      case 'agent_end':
        add({ ...base, kind: 'agent_end', agent: event.agent, output: event.output });
        break;
      case 'usage': {
        const entry: ModelEntry = {
          ...base,
          kind: 'model',
          model: event.model,
          usage: event.usage,
          duration: event.duration,
          request: [...conversation],
        };
        answering.set(event.branch, entry);
        add(entry);
        break;
      }
      case 'message': {
        const { message } = event;
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
        // A resumed run calls again what waited for approval: one entry, which its result completes.
        // Ids are the invocation's: offline/auto numbers its calls within a message, so every message
        // of a session uses them again; an entry with a result was an earlier call of the same id.
        const key = `${event.invocationId} ${event.call.id}`;
        const known = tools.get(key);
        if (known && !known.result) break;
        const entry: ToolEntry = { ...base, kind: 'tool', call: event.call };
        tools.set(key, entry);
        add(entry);
        break;
      }
      case 'tool_result': {
        const result = {
          content: event.content,
          isError: event.isError,
          duration: event.duration,
          errorCode: event.errorCode,
        };
        const entry = tools.get(`${event.invocationId} ${event.callId}`);
        if (entry) entry.result = result;
        else
          add({ ...base, kind: 'tool', call: { id: event.callId, name: event.name, arguments: {} }, result });
        break;
      }
      case 'state_delta':
        add({ ...base, kind: 'state', delta: event.delta });
        continue;
      case 'transfer':
        add({ ...base, kind: 'transfer', from: event.from, to: event.to });
        break;
      case 'approval_required':
        add({ ...base, kind: 'approval', pending: event.pending });
        break;
      case 'model_fallback':
        add({ ...base, kind: 'fallback', from: event.from, to: event.to, reason: event.reason });
        break;
      case 'error':
        add({ ...base, kind: 'error', code: event.code, message: event.message });
        break;
    }
    // Any event may carry state changes (an output_key, a tool's state write).
    if (event.stateDelta && Object.keys(event.stateDelta).length > 0)
      add({ ...base, kind: 'state', delta: event.stateDelta });
  }
  return [...invocations.values()];
}
