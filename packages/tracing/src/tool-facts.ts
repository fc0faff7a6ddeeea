import type { Attributes } from '@opentelemetry/api';
import { GEN_AI } from './gen-ai.js';

/** What an `execute_tool` span records of a tool call. */
export interface ToolFacts {
  readonly toolName: string;
  readonly callId: string;
  /** The arguments as recorded text (content capture only). */
  readonly args: string | undefined;
}

/** The attributes of an `execute_tool` span. */
export function toolAttributes(facts: ToolFacts): Attributes {
  // Keys written out, as in chat spans (a literal with computed keys costs more to make).
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': facts.toolName,
    'gen_ai.tool.call.id': facts.callId,
    'gen_ai.tool.type': 'function',
  };
  if (facts.args !== undefined) attributes[GEN_AI.toolArguments] = facts.args;
  return attributes;
}
