import type { Message } from './messages.js';

/** How the result of a call that was refused (by a rule or a person) begins: it never ran. */
export const REFUSED_RESULT = 'The call was not run:';

/** How the result of a call with arguments its schema refused begins: it never ran, nobody approved it. */
export const INVALID_RESULT = 'Invalid arguments for ';

/** Whether a tool message answers a call that never ran: refused, or refused by its schema. */
export function neverRan(message: Message): boolean {
  const content = message.content ?? '';
  return (
    message.isError === true && (content.startsWith(REFUSED_RESULT) || content.startsWith(INVALID_RESULT))
  );
}
