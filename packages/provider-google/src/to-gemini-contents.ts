import type { Message } from '@agentctl/core';
import type { Content, Part } from '@google/genai';

/** Where the tool call ids the API did not send come from, so they are never sent back. */
export const LOCAL_CALL_ID_PREFIX = 'gemini-call-';

/** The model's own parts of an assistant turn, as kept in `providerData.google.parts`. */
export interface GoogleProviderData {
  parts: Part[];
}

/**
 * Maps the core history to Gemini `contents`. System messages join the system instruction; an
 * assistant turn is sent back as the model's own parts when it kept them (thought signatures
 * included, which Gemini 3 requires with function calls), else rebuilt from text and calls; a
 * run of tool results becomes one `user` turn of `functionResponse` parts, and a user message
 * right after them joins that turn, because the API wants turns to alternate.
 */
export function toGeminiContents(
  system: string | undefined,
  history: readonly Message[],
): { systemInstruction: string | undefined; contents: Content[] } {
  const systemParts = system ? [system] : [];
  const contents: Content[] = [];
  let toolTurn: Content | undefined;
  for (const message of history) {
    switch (message.role) {
      case 'system':
        if (message.content) systemParts.push(message.content);
        break;
      case 'user': {
        const part: Part = { text: message.content ?? '' };
        if (toolTurn && contents.at(-1) === toolTurn) toolTurn.parts?.push(part);
        else contents.push({ role: 'user', parts: [part] });
        toolTurn = undefined;
        break;
      }
      case 'assistant': {
        const parts = modelParts(message);
        if (parts.length > 0) contents.push({ role: 'model', parts });
        toolTurn = undefined;
        break;
      }
      case 'tool': {
        if (!toolTurn || contents.at(-1) !== toolTurn) {
          toolTurn = { role: 'user', parts: [] };
          contents.push(toolTurn);
        }
        toolTurn.parts?.push(...toolResultParts(message));
        break;
      }
    }
  }
  return { systemInstruction: systemParts.length > 0 ? systemParts.join('\n\n') : undefined, contents };
}

function modelParts(message: Message): Part[] {
  const kept = (message.providerData?.google as GoogleProviderData | undefined)?.parts;
  if (Array.isArray(kept) && kept.length > 0) return kept;
  const parts: Part[] = [];
  if (message.content) parts.push({ text: message.content });
  for (const call of message.toolCalls ?? []) {
    parts.push({ functionCall: { ...apiId(call.id), name: call.name, args: call.arguments ?? {} } });
  }
  return parts;
}

function toolResultParts(message: Message): Part[] {
  const text = message.content ?? message.image?.text ?? '';
  const parts: Part[] = [
    {
      functionResponse: {
        ...apiId(message.toolCallId),
        name: message.name ?? '',
        response: message.isError ? { error: text } : { output: text },
      },
    },
  ];
  if (message.image)
    parts.push({ inlineData: { mimeType: message.image.mediaType, data: message.image.data } });
  return parts;
}

function apiId(id: string | undefined): { id?: string } {
  return id && !id.startsWith(LOCAL_CALL_ID_PREFIX) ? { id } : {};
}
