import { Command, CommanderError, Option } from 'commander';
import { packageVersion } from './package-version.js';

/** One parsed command line: which command, with which options. */
export interface Invocation {
  command: string;
  /** Positional arguments and options, by name. */
  options: Record<string, unknown>;
}

const TRACE_HELP =
  'export OpenTelemetry traces over OTLP/HTTP (on by itself when OTEL_EXPORTER_OTLP_ENDPOINT is set)';
const TRACE_CONTENT_HELP = 'with --trace: also record prompts, answers and tool arguments and results';

/** The version printed by `--version`: the CLI package's own, as released. */
export const VERSION = packageVersion('@agentctl/cli');

/**
 * Builds the command-line grammar. Parsing only: each command hands its options to `execute`,
 * so argv-to-options is tested without running anything.
 */
export function createProgram(execute: (invocation: Invocation) => Promise<number>): {
  program: Command;
  result: () => number;
} {
  let exitCode = 0;
  const program = new Command('agentctl')
    .description('Agent systems declared in YAML, checked against JSON Schema, run by one runtime.')
    .version(VERSION)
    .option('-C, --project <dir>', 'project folder (default: nearest agentctl.yaml upward)')
    .option('--debug', 'show stack traces of internal errors')
    .showHelpAfterError()
    .exitOverride();
  program.configureOutput({ outputError: (text, write) => write(text) });

  const action =
    (command: string, names: string[]) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const options: Record<string, unknown> = { ...program.opts(), ...cmd.opts() };
      names.forEach((name, i) => {
        options[name] = args[i];
      });
      exitCode = await execute({ command, options });
    };

  program
    .command('validate')
    .description('check the project (or the given files) and report problems with file:line:col')
    .argument('[paths...]', 'files or folders to report on (default: the whole project)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'github', 'sarif']))
    .addOption(jsonFormatOption())
    .option('--strict', 'treat warnings as errors')
    .option(
      '--connect',
      'also start MCP servers (tool names against their real tool lists) and connect to memory servers (postgres)',
    )
    .action(action('validate', ['paths']));

  program
    .command('run')
    .description('run an agent: one-shot with a prompt, a chat on a terminal, or the prompt from stdin')
    .argument('<agent>', 'agent name')
    .argument('[prompt]', 'the user message (default: stdin, or a chat on a terminal)')
    .option('--json', 'print events as NDJSON on stdout and nothing else')
    .option('--session <id>', 'continue this session ("new" starts a new one)')
    .option(
      '--wait [duration]',
      'if another run holds the session, wait for it up to DURATION (e.g. 30s, 2m; default 30s) instead of failing',
    )
    .option('--user <id>', 'the user of the run: `user:` state keys are shared by all of their sessions')
    .option('--model <name>', 'use this model (a named model or provider/model) for every agent of the run')
    .option(
      '--record <cassette>',
      'record every model call of the run into this YAML cassette (for offline replay)',
    )
    .option('--approve <callId...>', 'approve pending tool calls of a paused session')
    .option('--deny <callId...>', 'deny pending tool calls of a paused session')
    .option('--reason <text>', 'the reason given to the model for --deny')
    .option('--answer <callId=text...>', 'answer the question a pending tool call asks (user_input)')
    .option('--answer-file <callId=path...>', 'answer a pending question with the contents of a file')
    .option('--approve-all', 'approve every tool call without asking')
    .option(
      '--allow <pattern...>',
      'run matching calls without asking: TOOL, TOOL:GLOB (an argument) or TOOL:ARG=GLOB',
    )
    .option('--watch', 'reload the project on every change and run the prompt again on the new version')
    .option(
      '--queue',
      'enqueue the run for `agentctl worker` (AGENTCTL_QUEUE_URL, or queue.url in agentctl.yaml) and follow its events',
    )
    .option('--trace', TRACE_HELP)
    .option('--trace-content', TRACE_CONTENT_HELP)
    .action(action('run', ['agent', 'prompt']));

  program
    .command('dev')
    .description(
      'chat with an agent while editing: every save reloads the project (a broken save keeps the last good version; a broken start waits for a fix)',
    )
    .argument('[agent]', 'agent name (with --ui: the agent the page opens on)')
    .option(
      '--ui',
      'no terminal chat: serve the project and the dev UI on 127.0.0.1, like serve --watch --ui',
    )
    .option('--port <port>', 'with --ui: port to listen on (0 picks a free one; default 8787)')
    .option('--json', 'print events as NDJSON on stdout')
    .option('--session <id>', 'continue this session ("new" starts a new one)')
    .option('--user <id>', 'the user of the chat: `user:` state keys are shared by all of their sessions')
    .option('--model <name>', 'use this model (a named model or provider/model) for every agent')
    .option('--approve-all', 'approve every tool call without asking')
    .option(
      '--allow <pattern...>',
      'run matching calls without asking: TOOL, TOOL:GLOB (an argument) or TOOL:ARG=GLOB',
    )
    .option('--trace', TRACE_HELP)
    .option('--trace-content', TRACE_CONTENT_HELP)
    .action(action('dev', ['agent']));

  program
    .command('list')
    .description('list the agents of the project')
    .option('--json', 'print JSON')
    .action(action('list', []));

  program
    .command('tree')
    .description('show an agent with its sub-agents and tools')
    .argument('<agent>', 'agent name')
    .option('--json', 'print JSON')
    .action(action('tree', ['agent']));

  program
    .command('schema')
    .description('print the JSON Schema of the YAML format, or of one kind')
    .argument(
      '[kind]',
      'project, agent, model, tool, toolset, middleware, memory, test or schedule (default: all of them)',
    )
    .option(
      '--write <path>',
      'write the schema to this file (e.g. for an editor mapping) instead of printing it',
    )
    .action(action('schema', ['kind']));

  program
    .command('test')
    .description('run the `kind: test` conversations against the agent trees, offline, in parallel')
    .argument('[targets...]', 'test names, or test files and folders (default: every test)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'junit', 'github']))
    .addOption(jsonFormatOption())
    .option(
      '--update',
      'record the calls of models with a `cassette:` and their key set, into their cassettes',
    )
    .option(
      '--timeout <duration>',
      'longest a test may take (every turn and judge) unless it sets `timeout:`; e.g. 30s, 2m (default 60s)',
    )
    .option('--trace', TRACE_HELP)
    .option('--trace-content', TRACE_CONTENT_HELP)
    .action(action('test', ['targets']));

  program
    .command('init')
    .description('create a new project that runs offline at once')
    .argument('[dir]', 'where to create it', '.')
    .addOption(
      new Option('--template <name>', 'what the project starts with')
        .choices(['single', 'team', 'pipeline', 'mcp'])
        .default('single'),
    )
    .option('--force', 'write into a folder that is not empty')
    .action(action('init', ['dir']));

  program
    .command('sessions')
    .description('list, show, remove, export and import stored sessions')
    .argument('<action>', 'list | show | rm | export | import')
    .argument('[args...]', 'session id, or file')
    .option('--json', 'print JSON')
    .option(
      '--memory <name>',
      "the memory to work on (default: the project's defaults.memory when it keeps sessions, else .agentctl/sessions)",
    )
    .option('--limit <n>', 'list: one page of at most n sessions (1 to 1000), newest first')
    .option('--cursor <cursor>', 'list: the page after the one that printed this cursor')
    .action(action('sessions', ['action', 'args']));

  program
    .command('serve')
    .description('serve the agents over HTTP: a native API with SSE, an OpenAI-compatible endpoint and A2A')
    .option('--host <host>', 'address to listen on; without a token only loopback is allowed', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option(
      '--token-env <name>',
      'read bearer tokens (comma-separated) from this variable instead of AGENTCTL_SERVE_TOKEN',
    )
    .option('--cors <origin...>', 'allow these browser origins (CORS is off without it)')
    .option(
      '--grace <duration>',
      'on SIGTERM, how long runs in flight may finish before they are cancelled',
      '10s',
    )
    .option('--max-runs <n>', 'runs in flight at once; more are answered 429 with Retry-After', '64')
    .option(
      '--max-followers <n>',
      "streams of queued runs' events (GET /runs/{id}/events) open at once; more are answered 429",
      '256',
    )
    .option('--timeout <duration>', 'longest a run may take before it ends as TIMEOUT', '5m')
    .option('--max-body <bytes>', 'largest request body (413 beyond it)', '1048576')
    .option(
      '--max-stream-buffer <bytes>',
      'bytes of a streamed answer held for a client that does not read; beyond them its connection is closed',
      '1048576',
    )
    .option(
      '--expose-errors',
      "send internal errors' own texts to clients (for local debugging; by default they get a ref, the text goes to stderr)",
    )
    .option(
      '--public-url <url>',
      "the address clients reach the server at (behind a reverse proxy: https://agents.example.com); the A2A cards' url starts with it",
    )
    .option(
      '--trust-proxy',
      "take the A2A cards' scheme and host from X-Forwarded-Proto and X-Forwarded-Host (only behind a proxy that sets them)",
    )
    .option(
      '--heartbeat <duration>',
      'how often a quiet event stream (a run, the dev UI status) gets a comment, so proxies keep it open and clients see it alive',
      '15s',
    )
    .addOption(
      new Option('--log-format <format>', 'access log on stderr').choices(['text', 'json']).default('text'),
    )
    .option('--model <name>', 'use this model (a named model or provider/model) for every agent')
    .option('--watch', 'reload the project on every change; a run keeps the version it started on')
    .option('--ui', 'also serve the dev UI at /ui (prints its address)')
    .option('--trace', TRACE_HELP)
    .option('--trace-content', TRACE_CONTENT_HELP)
    .action(action('serve', []));

  program
    .command('worker')
    .description(
      'run queued runs from the project queue (AGENTCTL_QUEUE_URL, or queue.url in agentctl.yaml) until SIGTERM',
    )
    .option('--concurrency <n>', 'runs at once in this process (default: queue.concurrency, else 1)')
    .option(
      '--grace <duration>',
      'on SIGTERM, how long runs may finish before they go back to the queue',
      '30s',
    )
    .option('--trace', TRACE_HELP)
    .option('--trace-content', TRACE_CONTENT_HELP)
    .action(action('worker', []));

  program
    .command('schedules')
    .description('list the project schedules and when the queue runs them next')
    .argument('<action>', 'list')
    .option('--json', 'print JSON')
    .action(action('schedules', ['action']));

  return { program, result: () => exitCode };
}

/**
 * True for commander's own exits (help, version) that are not failures. Help printed because no
 * command was given (`agentctl` alone) is commander's `commander.help` with exit code 1: bad usage.
 */
export function isCleanExit(error: unknown): boolean {
  return (
    error instanceof CommanderError &&
    (error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      (error.code === 'commander.help' && error.exitCode === 0))
  );
}

export { CommanderError };

// `--json` prints data for programs on every command that prints data; where the output has formats,
// it is the json one.
function jsonFormatOption(): Option {
  return new Option('--json', 'the same as --format json').conflicts('format');
}
