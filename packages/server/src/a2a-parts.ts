import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role } from '@a2a-js/sdk';

/** A text part of an A2A message or artifact. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** The text of a message's or artifact's parts, joined (other kinds of part are skipped). */
export function textOf(parts: readonly Part[]): string {
  return parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

/** A one-part text message of the user or the agent, in a context and (when set) a task. */
export function textMessage(
  role: 'user' | 'agent',
  text: string,
  contextId: string,
  taskId: string,
): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
