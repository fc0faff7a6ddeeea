import type { JsonSchema } from '../registry.js';

// Options as written in YAML (snake_case), beside `builtin:` or under `options:`; the registry
// descriptors carry them and `agentctl schema` assembles them into the project schema.

// Every duration here is a timeout: zero would fail each call at once.
const duration = (description: string) => ({
  description,
  $ref: 'common.schema.json#/$defs/positiveDuration',
});
const path = (description: string) => ({ description, $ref: 'common.schema.json#/$defs/path' });
const count = (description: string) => ({ description, type: 'integer', minimum: 1 });
const strings = (description: string, item: string, extra: Record<string, unknown> = {}) => ({
  description,
  type: 'array',
  items: { type: 'string', minLength: 1, description: item, ...extra },
});

function options(description: string, properties: Record<string, unknown>): JsonSchema {
  return { description, type: 'object', additionalProperties: false, properties };
}

const roots = strings(
  'More folders the tools may use besides `root` (these may lie outside the project), relative to this file.',
  'A folder.',
);
const allowPrivate = (tools: string) => ({
  description: `Let ${tools} private files: secrets (\`.env*\`, \`.git\`, \`.ssh\`, \`.npmrc\`, private keys, ...) and the \`.agentctl\` folder (sessions), refused by default. Default false.`,
  type: 'boolean',
});
const hosts = (description: string) => strings(description, 'A host name, optionally with :port.');

/** The options schema of each built-in tool (core's and the toolbox), by name. */
export const BUILTIN_TOOL_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  current_time: options('Options of the `current_time` built-in.', {
    timezone: {
      description: 'The IANA time zone of the local time (e.g. Europe/Oslo).',
      type: 'string',
      minLength: 1,
      // Its shape, for editors; which zones exist is the time-zone rule's to say.
      $ref: 'common.schema.json#/$defs/timeZoneName',
    },
  }),
  read_file: options('Options of the `read_file` built-in.', {
    root: path('The folder it reads in, relative to this file. Default: the project folder.'),
    max_bytes: count('The largest file read.'),
    allow_private: allowPrivate('it read'),
  }),
  list_dir: options('Options of the `list_dir` built-in.', {
    root: path('The folder it lists in, relative to this file. Default: the project folder.'),
    max_entries: count('The most entries listed.'),
    allow_private: allowPrivate('it list'),
  }),
  http_get: options('Options of the `http_get` built-in.', {
    allowed_hosts: hosts('The hosts it may fetch from (optionally host:port). Default: none.'),
    max_bytes: count('The largest body read.'),
    timeout: duration('How long one request may take.'),
  }),
  user_input: options('Options of the `user_input` built-in.', {
    description: {
      description:
        'What the model reads about when to ask the user. Default: ask only what it cannot find out itself.',
      type: 'string',
      minLength: 1,
    },
  }),
  shell: options('Options of the `shell` built-in.', {
    root: path(
      "The folder commands run in (a call's `cwd` is relative to it), relative to this file. Default: the project.",
    ),
    roots,
    allow: strings(
      'Commands that run without asking: `*` globs on the whole command line (`git status*`). A command holding ; & | $ ` < > ( ) or a backslash, or whose first word is not a plain program name or path (an assignment, a quote, a glob), is always asked about.',
      'A `*` glob on the command line.',
    ),
    deny: strings(
      'Commands refused without asking: `*` globs matched on the command line and on each simple command of it, as the shell reads its words (quotes removed, leading reserved words, wrappers and assignments dropped). Best effort: variables, eval, nested shells and programs that run others are not seen through; approval stays the safety net.',
      'A `*` glob on the command line.',
    ),
    timeout: duration('How long one command may take. Default 60s.'),
    max_output_bytes: count('Output after which a command is stopped. Default 65536.'),
    env: {
      description:
        'Names of environment variables the commands see (PATH always; nothing else). Their values are scrubbed from results.',
      type: 'array',
      items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'A variable name.' },
    },
  }),
  filesystem: options('Options of the `filesystem` built-in.', {
    root: path(
      'The folder the tools are confined to (by real path), relative to this file. Default: the project.',
    ),
    roots,
    read_only: {
      description: 'Only read_file, list_dir, find_files and grep. Default false.',
      type: 'boolean',
    },
    approve_writes: {
      description: 'Whether write_file and edit_file ask a person first. Default true.',
      type: 'boolean',
    },
    max_bytes: count('The largest file read or edited. Default 262144.'),
    max_results: count('The most paths find_files and matches grep return. Default 200.'),
    allow_private: allowPrivate('the tools read and write'),
  }),
  fetch: options('Options of the `fetch` built-in.', {
    allowed_hosts: strings(
      'Hosts it may fetch from: `example.com`, `*.example.com`, `host:port`. Default: none.',
      'A host pattern.',
    ),
    max_bytes: count('The largest body read; longer ones are cut. Default 1048576.'),
    timeout: duration('How long one request may take. Default 10s.'),
    extract_text: {
      description: 'Return the readable text of HTML pages rather than their markup. Default true.',
      type: 'boolean',
    },
  }),
  think: options('The `think` built-in takes no options.', {}),
  todo: options('The `todo` built-in takes no options.', {}),
  memory: options('Options of the `memory` built-in.', {
    max_notes: count('Notes kept per user at most; the oldest go first. Default 200.'),
  }),
};
