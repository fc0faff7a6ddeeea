import { HTTP_HEADERS_SCHEMA } from '@agentctl/core';

/**
 * The JSON Schema of an Anthropic model's `options:` as written in YAML, registered with the
 * provider so `validate` rejects unknown keys (with a suggestion) and editors complete them.
 * Thinking is not an option: the model's `reasoning:` maps to it. Kept apart from the provider so
 * registering it does not load the SDK.
 */
export const ANTHROPIC_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    prompt_caching: {
      description: 'Mark the system prompt and the tool definitions as cacheable.',
      type: 'boolean',
    },
    headers: {
      ...HTTP_HEADERS_SCHEMA,
      description:
        'Extra HTTP headers sent with every request, named by HTTP tokens (letters, digits and -, no spaces).',
    },
    extra_body: {
      description: 'Sent in the request body as is, unchecked: the escape hatch for new API parameters.',
      type: 'object',
    },
  },
} as const;
