import type { Message, ToolCall } from '../messages.js';
import type { ChatParams, ModelProvider, ModelResponse, StreamEvent } from '../model.js';
import { collectStream } from '../model.js';
import { estimateTokens } from '../usage.js';
import { sampleValue } from './sample-value.js';
import { estimateInput, streamResponse } from './stream-text.js';

/**
 * The offline `auto` model: on a new user message it calls every tool it was given once, all at
 * once, with arguments made from each tool's JSON Schema; when the results are in it answers with
 * a summary of them. Lets a project exercise its tools end to end with no model at all.
 */
export class AutoModel implements ModelProvider {
  readonly name = 'offline';
  readonly #exclude: (name: string) => boolean;

  /** `exclude` names tools auto must not call (control tools such as transfers). */
  constructor(options: { exclude?: (name: string) => boolean } = {}) {
    this.#exclude = options.exclude ?? (() => false);
  }

  chat(params: ChatParams): Promise<ModelResponse> {
    return collectStream(this.stream(params));
  }

  stream(params: ChatParams): AsyncIterable<StreamEvent> {
    const turn = currentTurn(params.messages);
    const called = new Set(turn.flatMap((m) => (m.toolCalls ?? []).map((c) => c.name)));
    const toCall = (params.tools ?? []).filter((t) => !called.has(t.name) && !this.#exclude(t.name));
    let response: ModelResponse;
    if (called.size === 0 && toCall.length > 0) {
      const base = turn.length;
      const toolCalls: ToolCall[] = toCall.map((tool, i) => ({
        id: `auto_${base}_${i}`,
        name: tool.name,
        arguments: sampleValue(tool.parameters) as Record<string, unknown>,
      }));
      response = {
        content: null,
        toolCalls,
        usage: {
          inputTokens: estimateInput(params),
          outputTokens: estimateTokens(JSON.stringify(toolCalls)),
        },
        finishReason: 'tool_calls',
      };
    } else {
      const content = params.responseFormat
        ? JSON.stringify(sampleValue(params.responseFormat.schema))
        : summary(turn);
      response = {
        content,
        toolCalls: [],
        usage: { inputTokens: estimateInput(params), outputTokens: estimateTokens(content) },
        finishReason: 'stop',
      };
    }
    return streamResponse(response, { signal: params.signal });
  }
}

function currentTurn(messages: readonly Message[]): Message[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1].role !== 'user') start--;
  return messages.slice(start);
}

function summary(turn: readonly Message[]): string {
  const results = turn.filter((m) => m.role === 'tool');
  if (results.length === 0) return 'No tools to call. Done.';
  const lines = results.map(
    (m) => `- ${m.name ?? m.toolCallId}${m.isError ? ' (error)' : ''}: ${truncate(m.content ?? '')}`,
  );
  return `Called ${results.length} tool(s):\n${lines.join('\n')}`;
}

function truncate(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
