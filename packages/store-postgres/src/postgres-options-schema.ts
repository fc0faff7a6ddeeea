// A file of its own, free of `pg`, so the command line reads it without loading the driver.

/** JSON Schema of a postgres memory's `options:`, for the registry (validate checks it offline). */
export const POSTGRES_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pool_size: {
      description: 'Most connections each process opens. Default 10.',
      type: 'integer',
      minimum: 1,
      maximum: 1000,
    },
    schema: {
      description:
        'The PostgreSQL schema of the tables, created when missing: lowercase letters, digits and _, not starting with a digit, at most 40. Default public.',
      type: 'string',
      pattern: '^[a-z_][a-z0-9_]{0,39}$',
    },
    table_prefix: {
      description:
        'Prefix of every table name, so several projects can share a schema: lowercase letters, digits and _, not starting with a digit, at most 40. Default agentctl_.',
      type: 'string',
      pattern: '^([a-z_][a-z0-9_]{0,39})?$',
    },
    connect_timeout: {
      description:
        'How long to wait for the server before failing: a duration such as 5s, or milliseconds. Default 10s.',
      type: ['integer', 'string'],
      minimum: 1,
      pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h)\\s*$',
    },
    query_timeout: {
      description:
        'How long a statement may wait for the server to answer before it fails (a server that stopped answering, not one that is down): a duration such as 30s, or milliseconds. Default 30s.',
      type: ['integer', 'string'],
      minimum: 1,
      pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h)\\s*$',
    },
  },
} as const;
