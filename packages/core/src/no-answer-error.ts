import { AgentError } from './errors.js';

/**
 * The error of an answer that ended with nothing said, no tool called, and a finish reason the
 * provider does not list as a normal end (a new or server-specific one, such as Anthropic's
 * `pause_turn` or a compatible server's `error`): passed on, it would be an empty answer that
 * looks whole. `MODEL_ERROR`, retryable, as nothing was shown yet.
 *
 * @example
 * throw noAnswerError('openai', 'gpt-4.1-mini', 'error');
 */
export function noAnswerError(provider: string, model: string, finishReason: string): AgentError {
  return new AgentError(
    `${provider} model ${model} stopped with ${finishReason}, the model gave no answer`,
    'MODEL_ERROR',
    { retryable: true, context: { provider, model, finishReason, retryable: true } },
  );
}
