import type { ModelResponse, ObservedModelCall } from '@agentctl/core';
import type { Attributes } from '@opentelemetry/api';
import { GEN_AI, providerName } from './gen-ai.js';
import { inputMessages, outputMessages, systemInstructions } from './message-parts.js';

/** Turns a value into the recorded (scrubbed JSON) text of a span attribute. */
export type ContentRecorder = (value: unknown) => string;

/** What a `chat` span records of a model call's request, read as the call starts. */
export interface ChatFacts {
  readonly provider: string;
  readonly requestModel: string;
  readonly agent: string;
  readonly conversationId: string | undefined;
  readonly temperature: number | undefined;
  readonly topP: number | undefined;
  readonly maxTokens: number | undefined;
  /** The system instructions and the messages sent, as recorded text (content capture only). */
  readonly system: string | undefined;
  readonly input: string | undefined;
}

/** What a `chat` span records of the model's answer. */
export interface ChatAnswer {
  readonly responseModel: string;
  readonly finishReason: string;
  /** Input tokens as the conventions count them: cached input included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** The provider reported no usage: the counts are 0 or a guess, and no span claims them. */
  readonly unreported: boolean;
  /** The answer as recorded text (content capture only). */
  readonly output: string | undefined;
}

/** Reads a chat span's request facts from an observed call; `record` is set when content is captured. */
export function chatFacts(
  call: ObservedModelCall,
  conversationId: string | undefined,
  record: ContentRecorder | undefined,
): ChatFacts {
  const { request } = call;
  return {
    provider: providerName(call.provider),
    requestModel: request.model,
    agent: call.agent,
    conversationId,
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxOutputTokens,
    // The history array grows after the call: what was sent is recorded now.
    system: record && request.system ? record(systemInstructions(request.system)) : undefined,
    input: record ? record(inputMessages(request.messages)) : undefined,
  };
}

/** Reads a chat span's answer facts from the model's response. */
export function chatAnswer(
  response: ModelResponse,
  requestModel: string,
  record: ContentRecorder | undefined,
): ChatAnswer {
  const usage = response.usage;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    responseModel: response.model ?? requestModel,
    finishReason: response.finishReason ?? 'stop',
    // The conventions count cached input inside the input tokens; agentctl keeps them apart.
    inputTokens: usage.inputTokens + cacheRead + cacheWrite,
    outputTokens: usage.outputTokens,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    unreported: usage.unreported === true,
    output: record ? record(outputMessages(response)) : undefined,
  };
}

// One finish-reasons array per reason, shared by the spans (attribute values are never mutated).
const FINISH_REASONS = new Map<string, string[]>();
function finishReasons(reason: string): string[] {
  let list = FINISH_REASONS.get(reason);
  if (!list) {
    list = [reason];
    if (FINISH_REASONS.size < 100) FINISH_REASONS.set(reason, list);
  }
  return list;
}

/** The attributes of a `chat` span: the request's, and the answer's once there is one. */
export function chatAttributes(facts: ChatFacts, answer: ChatAnswer | undefined): Attributes {
  // One literal for an answered call, the common case: what the exporter reads is then one object
  // made at once, with no second one merged into it. Its keys are written out (they are GEN_AI's
  // names; a test holds them to it): a literal with computed keys takes five times as long to make.
  const attributes: Attributes =
    answer === undefined
      ? {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': facts.provider,
          'gen_ai.request.model': facts.requestModel,
          'gen_ai.agent.name': facts.agent,
        }
      : {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': facts.provider,
          'gen_ai.request.model': facts.requestModel,
          'gen_ai.agent.name': facts.agent,
          'gen_ai.response.model': answer.responseModel,
          'gen_ai.response.finish_reasons': finishReasons(answer.finishReason),
          'gen_ai.usage.input_tokens': answer.inputTokens,
          'gen_ai.usage.output_tokens': answer.outputTokens,
          'gen_ai.usage.cache_read.input_tokens': answer.cacheReadTokens,
          'gen_ai.usage.cache_creation.input_tokens': answer.cacheWriteTokens,
        };
  if (answer?.unreported) {
    // A backend would chart the 0 (or the estimate) as what the call cost.
    delete attributes['gen_ai.usage.input_tokens'];
    delete attributes['gen_ai.usage.output_tokens'];
    delete attributes['gen_ai.usage.cache_read.input_tokens'];
    delete attributes['gen_ai.usage.cache_creation.input_tokens'];
  }
  // Unset settings are left out rather than set to undefined, which is no attribute value.
  if (facts.conversationId !== undefined) attributes[GEN_AI.conversationId] = facts.conversationId;
  if (facts.temperature !== undefined) attributes[GEN_AI.requestTemperature] = facts.temperature;
  if (facts.topP !== undefined) attributes[GEN_AI.requestTopP] = facts.topP;
  if (facts.maxTokens !== undefined) attributes[GEN_AI.requestMaxTokens] = facts.maxTokens;
  if (facts.system !== undefined) attributes[GEN_AI.systemInstructions] = facts.system;
  if (facts.input !== undefined) attributes[GEN_AI.inputMessages] = facts.input;
  if (answer?.output !== undefined) attributes[GEN_AI.outputMessages] = answer.output;
  return attributes;
}
