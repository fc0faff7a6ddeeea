import { mapStrings } from '../map-strings.js';
import type { Message, ToolCall } from '../messages.js';
import type { Middleware } from '../middleware/types.js';
import { KNOWN_REDACTION_MARKERS } from './redacted-copy.js';

const AS_MADE = (call: ToolCall): ToolCall => call;

/** How an agent records the model's calls, and what its rules put in place of what they hide. */
export interface CallRecording {
  /** The call as the agent records it now ({@link callRecorder}). */
  record: (call: ToolCall) => ToolCall;
  /** The text each of its rules writes in place of what it hides, agentctl's own included. */
  markers: readonly string[];
}

/** The markers of an agent's redaction rules: agentctl's own, and each middleware's `redactionMarker`. */
export function redactionMarkers(middleware: readonly Middleware[] | undefined): string[] {
  const own = (middleware ?? []).flatMap((m) => (m.redactionMarker ? [m.redactionMarker] : []));
  return [...new Set([...KNOWN_REDACTION_MARKERS, ...own])];
}

/**
 * How an agent records the model's tool calls: each string of their arguments (keys too) through
 * every redacting middleware of the agent ({@link Middleware.redactsCalls}), then `redact`,
 * marked `argumentsRedacted` where that changed them. Without any, the calls as made.
 */
export function callRecorder(
  redact: ((text: string) => string) | undefined,
  middleware: readonly Middleware[] | undefined,
): (call: ToolCall) => ToolCall {
  const rules = (middleware ?? []).flatMap((m) => (m.redactsCalls ? [m.redactsCalls] : []));
  if (redact) rules.push(redact);
  if (rules.length === 0) return AS_MADE;
  const text = (value: string) => rules.reduce((out, rule) => rule(out), value);
  return (call) => {
    let changed = false;
    const redacted = (value: string) => {
      const out = text(value);
      if (out !== value) changed = true;
      return out;
    };
    const args = mapStrings(call.arguments, redacted) as Record<string, unknown>;
    const malformed = call.malformedArguments === undefined ? undefined : redacted(call.malformedArguments);
    if (!changed) return call;
    return {
      ...call,
      arguments: args,
      ...(malformed === undefined ? {} : { malformedArguments: malformed }),
      argumentsRedacted: true,
    };
  };
}

/** The message as the run records it: its tool calls through `recorded`, the message itself when none changed. */
export function recordedMessage(message: Message, recorded: (call: ToolCall) => ToolCall): Message {
  const calls = message.toolCalls;
  if (!calls || recorded === AS_MADE) return message;
  const out = calls.map(recorded);
  return out.every((call, i) => call === calls[i]) ? message : { ...message, toolCalls: out };
}

/**
 * The history a resumed run continues, with the calls it paused on given back the arguments they
 * were made with: the session records them redacted, the checkpoint keeps them to run them.
 */
export function withPausedArguments(messages: Message[], paused: readonly { call: ToolCall }[]): Message[] {
  const made = new Map(paused.map((p) => [p.call.id, p.call]));
  return messages.map((message) => {
    if (!message.toolCalls?.some((call) => call.argumentsRedacted && made.has(call.id))) return message;
    const toolCalls = message.toolCalls.map((call) =>
      call.argumentsRedacted ? (made.get(call.id) ?? call) : call,
    );
    return { ...message, toolCalls };
  });
}
