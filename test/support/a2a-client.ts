import { randomUUID } from 'node:crypto';
import { type Message, Role } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';

/** The A2A SDK's own client for one agent of a server, from the card's full URL (the SDK would look at the host's root). */
export function a2aClient(serverUrl: string, agent: string): Promise<Client> {
  return new ClientFactory().createFromUrl(`${serverUrl}/a2a/${agent}/.well-known/agent-card.json`, '');
}

/** A one-part text message of the user, in a context and task when given. */
export function userMessage(text: string, ids: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The parameters of `sendMessage`/`sendMessageStream` for `message`, nothing else set. */
export function sendParams(message: Message) {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}
