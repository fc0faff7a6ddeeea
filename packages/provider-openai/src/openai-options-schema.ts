import { HTTP_HEADERS_SCHEMA } from '@agentctl/core';

/**
 * The JSON Schema of an OpenAI model's `options:` as written in YAML, registered with the
 * provider so `validate` rejects unknown keys (with a suggestion) and editors complete them.
 * Kept apart from the provider so registering it does not load the SDK.
 */
export const OPENAI_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    organization: { description: 'The OpenAI organization id sent with every request.', type: 'string' },
    headers: {
      ...HTTP_HEADERS_SCHEMA,
      description:
        'Extra HTTP headers sent with every request, named by HTTP tokens (letters, digits and -, no spaces).',
    },
    max_tokens_field: {
      description:
        'Which field carries max_output_tokens: max_completion_tokens (OpenAI, default) or max_tokens (older OpenAI-compatible servers).',
      enum: ['max_completion_tokens', 'max_tokens'],
    },
    strict_output: {
      description: 'Ask for strict JSON Schema adherence when the agent has an output_schema.',
      type: 'boolean',
    },
    extra_body: {
      description:
        'Sent in the request body as is, unchecked: the escape hatch for server-specific parameters.',
      type: 'object',
    },
  },
} as const;
