import type { JsonSchema } from '../registry.js';

const duration = { $ref: 'common.schema.json#/$defs/duration' };
// A timeout of zero would fail every call at once.
const limit = { $ref: 'common.schema.json#/$defs/positiveDuration' };

function options(properties: Record<string, unknown>): JsonSchema {
  return { type: 'object', additionalProperties: false, properties };
}

/** The options schema of each built-in middleware, as written in YAML. */
export const BUILTIN_MIDDLEWARE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  retry: options({
    max_attempts: { description: 'Attempts in all, the first included.', type: 'integer', minimum: 1 },
    initial_delay: { description: 'The first wait; doubles each attempt.', ...duration },
    max_delay: { description: 'The longest wait.', ...duration },
    on: {
      description: 'What is retried.',
      type: 'array',
      items: { enum: ['model_call', 'tool_call'] },
    },
  }),
  timeout: options({
    model: { description: 'Longest model call (more than zero).', ...limit },
    tool: { description: 'Longest tool call (more than zero).', ...limit },
  }),
  logging: options({ verbose: { description: 'Log payloads too.', type: 'boolean' } }),
  redaction: options({
    patterns: { description: 'Regular expressions to redact.', type: 'array', items: { type: 'string' } },
    builtins: {
      description:
        'The built-in patterns: e-mail addresses, card numbers, US social security and phone numbers. On by default; false leaves them out.',
      type: 'boolean',
    },
    replacement: { description: 'What replaces a match. Default [REDACTED].', type: 'string' },
  }),
};

/** The options schema of a plugin that takes none (the `offline` provider, the `memory` and `file` backends). */
export const NO_OPTIONS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {},
};
