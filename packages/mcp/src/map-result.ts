import type { ImageContent, ImageMediaType } from '@agentctl/core';

const IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** Bytes of one answer's text the model gets when the toolset sets no `max_bytes`: as `read_file`. */
export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024;

type Block = { type?: string; [key: string]: unknown };

/** The error a tool throws when the server answered `isError: true`; the loop reports its text. */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Turns an MCP call result into what a core tool returns: joined text; an {@link ImageContent}
 * (with the text beside it) when there is an image; the structured content object when present.
 * A result flagged `isError` throws, so the model sees a tool error. `note` is put before the text.
 * Text past `maxBytes` is cut with a note, and a larger image is left out: the model's context and
 * the session keep at most that much of one answer, whatever the server sends.
 */
export function mapCallResult(
  result: Record<string, unknown>,
  note?: string,
  maxBytes = DEFAULT_MAX_RESULT_BYTES,
): unknown {
  // Servers on the 2024-10-07 protocol answer with `toolResult` instead of `content`.
  if (!Array.isArray(result.content) && 'toolResult' in result) {
    return withNote(bounded(result.toolResult, maxBytes), note);
  }
  const blocks = (Array.isArray(result.content) ? result.content : []) as Block[];
  const texts: string[] = [];
  const images: ImageContent[] = [];
  for (const block of blocks) {
    const image = imageOf(block);
    if (image && image.data.length > maxBytes)
      texts.push(
        `[image of ${image.data.length} bytes not shown: larger than the toolset's max_bytes (${maxBytes})]`,
      );
    else if (image) images.push(image);
    else {
      const text = textOf(block);
      if (text) texts.push(text);
    }
  }
  if (result.isError === true) {
    throw new McpToolError(
      cut(texts.join('\n'), maxBytes) || 'the MCP tool reported an error without a message',
    );
  }
  if (images.length > 0) {
    if (images.length > 1) texts.push(`[${images.length - 1} more image(s) not shown]`);
    const text = [note, cut(texts.join('\n'), maxBytes)].filter(Boolean).join('\n');
    return text ? { ...images[0], text } : images[0];
  }
  const structured = result.structuredContent;
  // Servers also serialise structured content into a text block; the object says it better.
  if (structured !== undefined && structured !== null) return withNote(bounded(structured, maxBytes), note);
  return withNote(cut(texts.join('\n'), maxBytes), note);
}

// A value as it is when its JSON fits in `maxBytes`; otherwise its JSON text, cut.
function bounded(value: unknown, maxBytes: number): unknown {
  if (typeof value === 'string') return cut(value, maxBytes);
  const json = JSON.stringify(value) ?? '';
  return Buffer.byteLength(json) > maxBytes ? cut(json, maxBytes) : value;
}

function cut(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  // A character split at the cut decodes as U+FFFD; it is dropped.
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}\n[truncated: the answer has ${bytes} bytes; the first ${maxBytes} are shown (the toolset's max_bytes)]`;
}

function withNote(value: unknown, note: string | undefined): unknown {
  if (!note) return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `${note}\n${text}`;
}

function imageOf(block: Block): ImageContent | undefined {
  if (block.type !== 'image' || typeof block.data !== 'string') return undefined;
  const mediaType = String(block.mimeType ?? '');
  if (!IMAGE_TYPES.includes(mediaType)) return undefined;
  return { type: 'image', mediaType: mediaType as ImageMediaType, data: block.data };
}

function textOf(block: Block): string | undefined {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : undefined;
    case 'image':
      return `[image of type ${String(block.mimeType)} not shown]`;
    case 'audio':
      return `[audio of type ${String(block.mimeType)} not shown]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${String(resource.uri)} (${String(resource.mimeType ?? 'binary')}) not shown]`;
    }
    case 'resource_link':
      return `[resource link: ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ''}]`;
    default:
      return undefined;
  }
}
