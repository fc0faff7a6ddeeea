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
  const attributes: Attributes = {
    [GEN_AI.operation]: 'execute_tool',
    [GEN_AI.toolName]: facts.toolName,
    [GEN_AI.toolCallId]: facts.callId,
    [GEN_AI.toolType]: 'function',
  };
  if (facts.args !== undefined) attributes[GEN_AI.toolArguments] = facts.args;
  return attributes;
}
