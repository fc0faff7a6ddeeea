import { defineTool, type Tool } from '../tool.js';

/** Options of {@link userInput}. */
export interface UserInputOptions {
  /** What the model reads about when to ask. Default: ask only what it cannot find out itself. */
  description?: string;
}

/** The arguments of a `user_input` call. */
export interface UserInputArgs {
  question: string;
  /** Answers to offer; the person may still answer something else. */
  choices?: string[];
}

/**
 * The built-in `user_input` tool: asks the person running the agent a question and returns the
 * answer. On a terminal the question is asked there; otherwise the run pauses until an answer is
 * given (`agentctl run --answer CALL_ID=TEXT`).
 *
 * @example
 * createAgent({ name: 'planner', provider, tools: [userInput()] });
 */
export function userInput(options: UserInputOptions = {}): Tool<UserInputArgs, never> {
  return defineTool<UserInputArgs, never>({
    name: 'user_input',
    description:
      options.description ??
      'Asks the user a question and returns their answer. Use it only for what you cannot find out yourself.',
    parameters: {
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 1, description: 'the question, as the user will read it' },
        choices: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'answers to offer, when there are a few obvious ones',
        },
      },
      required: ['question'],
      additionalProperties: false,
    },
    // The answer arrives as this call's result; the tool itself never returns.
    execute: ({ question, choices }, context) =>
      context.requestInput(choices?.length ? `${question} (${choices.join(' / ')})` : question),
  });
}
