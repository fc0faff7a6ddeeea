/** Who wrote a message in a conversation. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** Image media types a tool result may carry. */
export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** An image a tool returned: base64 data plus its media type, and optional text beside it. */
export interface ImageContent {
  type: 'image';
  mediaType: ImageMediaType;
  /** Base64-encoded bytes. */
  data: string;
  text?: string;
}

/** A tool invocation requested by the model. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * The text the model sent as arguments when it was not a JSON object (`arguments` is then `{}`):
   * the call goes back to the model as invalid and never runs, whatever the tool's schema accepts.
   */
  malformedArguments?: string;
  /**
   * True on the call as recorded (its events, the session) when the agent's redaction changed its
   * arguments there: the tool received them as the model made them.
   */
  argumentsRedacted?: true;
}

/** One message of a conversation, in the provider-neutral shape every provider maps from and to. */
export interface Message {
  role: Role;
  /** Text content; null for an assistant message that only calls tools. */
  content: string | null;
  /** Tool calls requested by an assistant message. */
  toolCalls?: ToolCall[];
  /** On a `tool` message: the id of the call this result answers. */
  toolCallId?: string;
  /** On a `tool` message: the tool's name; on other roles: an optional author name. */
  name?: string;
  /** On a `tool` message: an image returned by the tool. */
  image?: ImageContent;
  /** On a `tool` message: true when the result reports a failure to the model. */
  isError?: boolean;
  /** Provider-specific data that must round-trip in history (for example thinking blocks). */
  providerData?: Record<string, unknown>;
  /**
   * On an `assistant` message the model did not finish: `length` when it reached its output limit
   * (`max_output_tokens`), `content_filter` when the provider stopped it. Absent on a whole answer.
   */
  cutShort?: 'length' | 'content_filter';
}

/** True when a value is an {@link ImageContent}. */
export function isImageContent(value: unknown): value is ImageContent {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'image' &&
    typeof (value as { data?: unknown }).data === 'string' &&
    typeof (value as { mediaType?: unknown }).mediaType === 'string'
  );
}
