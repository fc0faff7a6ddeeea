/**
 * Attribute names and values of the OpenTelemetry GenAI semantic conventions (development status,
 * as of semantic-conventions 1.41 / semantic-conventions-genai 0.1), plus agentctl's own.
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  agentDescription: 'gen_ai.agent.description',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
} as const;

/** agentctl's own attributes, for what the conventions have no name for. */
export const AGENTCTL = {
  invocationId: 'agentctl.invocation.id',
  sessionId: 'agentctl.session.id',
  branch: 'agentctl.branch',
  agentType: 'agentctl.agent.type',
  status: 'agentctl.run.status',
  transferTo: 'agentctl.transfer.to',
  totalInputTokens: 'agentctl.usage.input_tokens',
  totalOutputTokens: 'agentctl.usage.output_tokens',
} as const;

// Names the conventions list for the providers agentctl ships; any other keeps its own name.
// (A Map: a name missing from a plain object is looked up along its prototype chain, per model call.)
const PROVIDERS: ReadonlyMap<string, string> = new Map([
  ['openai', 'openai'],
  ['anthropic', 'anthropic'],
  ['google', 'gcp.gen_ai'],
]);

// A process mostly calls one provider: the latest answer is kept at hand.
let lastProvider = '';
let lastName = '';

/** The `gen_ai.provider.name` of an agentctl provider. */
export function providerName(name: string): string {
  if (name !== lastProvider) {
    lastProvider = name;
    lastName = PROVIDERS.get(name) ?? name;
  }
  return lastName;
}
