import { HTTP_HEADERS_SCHEMA } from '@agentctl/core';

/**
 * The JSON Schema of a Google (Gemini) model's `options:` as written in YAML, registered with the
 * provider so `validate` rejects unknown keys (with a suggestion) and editors complete them.
 * The model's `reasoning:` maps to thinking; `thinking_budget` and `thinking_level` here override
 * it. Kept apart from the provider so registering it does not load the SDK.
 */
export const GOOGLE_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    thinking_budget: {
      description:
        'Tokens the model may spend thinking (Gemini 2.5): 0 turns thinking off, -1 lets the model decide. Overrides reasoning.budget_tokens.',
      type: 'integer',
      minimum: -1,
    },
    thinking_level: {
      description: 'How hard the model thinks (Gemini 3). Overrides reasoning.effort.',
      enum: ['minimal', 'low', 'medium', 'high'],
    },
    include_thoughts: {
      description: 'Ask for thought summaries; they are kept with the answer and never shown as text.',
      type: 'boolean',
    },
    cached_content: {
      description:
        'The name of a context cache created on the API (cachedContents/...), used as the prompt prefix.',
      type: 'string',
    },
    api_version: {
      description: 'The API version in the URL. Default v1beta.',
      type: 'string',
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
