import type { ChatParams, ModelProvider, ModelResponse, StreamEvent } from '../model.js';
import { collectStream } from '../model.js';
import { estimateTokens } from '../usage.js';
import { sampleValue } from './sample-value.js';
import { estimateInput, streamResponse } from './stream-text.js';

/**
 * The offline `echo` model: answers with the last user message and never calls a tool. With a
 * response format it answers with a JSON value that fits the schema.
 */
export class EchoModel implements ModelProvider {
  readonly name = 'offline';
  readonly #delayMs: number;

  constructor(options: { delayMs?: number } = {}) {
    this.#delayMs = options.delayMs ?? 0;
  }

  chat(params: ChatParams): Promise<ModelResponse> {
    return collectStream(this.stream(params));
  }

  stream(params: ChatParams): AsyncIterable<StreamEvent> {
    let lastUser = '';
    for (let i = params.messages.length - 1; i >= 0; i--) {
      const message = params.messages[i];
      if (message.role === 'user') {
        lastUser = message.content ?? '';
        break;
      }
    }
    const content = params.responseFormat
      ? JSON.stringify(sampleValue(params.responseFormat.schema))
      : lastUser.length > 0
        ? lastUser
        : '(nothing to echo)';
    const response: ModelResponse = {
      content,
      toolCalls: [],
      usage: { inputTokens: estimateInput(params), outputTokens: estimateTokens(content) },
      finishReason: 'stop',
    };
    return streamResponse(response, { delayMs: this.#delayMs, signal: params.signal });
  }
}
