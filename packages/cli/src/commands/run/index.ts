import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Interface } from 'node:readline/promises';
import { runCodeInFlight, watchRunCode } from '@agentctl/config';
import type { Agent, ApprovalDecision, InvocationResult, PendingApproval, RunOptions } from '@agentctl/core';
import {
  AgentError,
  assertSessionId,
  InMemorySessionStore,
  isAgentError,
  PausedSessionError,
  parseDuration,
  Runner,
  SessionBusyError,
  SessionLeaseLostError,
  UsageError,
} from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { CLOSE_WAIT_MS, closeWithin } from '../../close-within.js';
import { damagedSessionHint } from '../../damaged-session-hint.js';
import { invocationOutcome } from '../../invocation-outcome.js';
import { type Io, styles } from '../../io.js';
import { printable } from '../../printable.js';
import { openRuntime } from '../../project.js';
import { sessionStoreFor } from '../../session-store.js';
import { shellQuote } from '../../shell-quote.js';
import { systemRefusal } from '../../system-refusal.js';
import { terminalReadline } from '../../terminal-readline.js';
import { unknownAgent } from '../../unknown-agent.js';
import { WindDownBudget, WOUND_DOWN_LATE, windDown } from '../../wind-down.js';
import { allowMatcher, parseAllowRules } from './allow-rules.js';
import { readStdin, readText } from './read-stdin.js';
import { jsonRenderer, textRenderer } from './render-events.js';
import { resumeCommand, sessionsCommand } from './resume-command.js';
import { Spinner } from './spinner.js';

/** Options of `agentctl run`. */
export interface RunCommandOptions {
  agent: string;
  prompt?: string;
  json?: boolean;
  session?: string;
  /** `--wait [DURATION]`: how long to wait for a session another run holds (true: the default). */
  wait?: string | boolean;
  /** The user whose `user:` state the run shares. */
  user?: string;
  /** `--model`: the model every agent of the run uses instead of its own. */
  model?: string;
  approve?: string[];
  deny?: string[];
  reason?: string;
  /** `CALL_ID=TEXT`: answers to the questions of paused calls. */
  answer?: string[];
  /** `CALL_ID=PATH`: answers read from files. */
  answerFile?: string[];
  approveAll?: boolean;
  /** `--allow` patterns: matching calls run without asking (deny rules of the YAML still win). */
  allow?: string[];
  project?: string;
  /** Reload the project on every change and run the prompt again (`--watch`). */
  watch?: boolean;
  /** Enqueue the run for a worker and follow its events (`--queue`). */
  queue?: boolean;
}

/** `agentctl run <agent> [prompt]`: one-shot, from stdin, a chat on a terminal, or a resume. */
export async function runCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const options = raw as unknown as RunCommandOptions;
  parseAllowRules(options.allow ?? []); // a malformed --allow is a usage error before any server starts
  waitMs(options); // a bad --session or --wait is a usage error before any server starts
  // NDJSON and nothing else: a module tool or middleware printing with console.log must not break it.
  if (options.json) io.reserveStdout?.();
  if (options.watch) return (await import('./watch-run.js')).watchRun(options, io);
  if (options.queue) return (await import('./queued-run.js')).queuedRun(options, decisionsOf, io);
  // Only the agent asked for (and what it uses) is compiled: another agent's missing key must not stop it.
  const { project, runtime } = await openRuntime(raw, io, [options.agent]);
  // A tool that loops without yielding ends the run at its timeout, named, rather than hang it.
  const unwatch = watchRunCode({ fatal: true });
  let exit: number | undefined;
  // The run's end and the store's close share the wait a stopped run gets.
  const budget = new WindDownBudget();
  try {
    const agent = runtime.agents.get(options.agent);
    if (!agent) {
      throw unknownAgent(options.agent, project.specs.agent.keys());
    }
    const store = await sessionStoreFor(agent, runtime);
    if (store instanceof InMemorySessionStore && options.session && options.session !== 'new')
      io.stderr(forgetfulStore(options.agent, options.session));
    const runner = new Runner({
      agent,
      store,
      // A run the watchdog ends inside a tool keeps its session up to the tool's call.
      writeBeforeTools: true,
    });
    const decisions = await decisionsOf(options, io.cwd);
    if (decisions.length > 0) {
      if (!options.session || options.session === 'new') {
        throw new CliError(
          '--approve, --deny and --answer need --session ID of the paused session',
          EXIT.usage,
        );
      }
      if (options.prompt !== undefined) {
        throw new CliError('a prompt cannot be given with --approve, --deny or --answer', EXIT.usage);
      }
      exit = await invoke(
        runner,
        { resume: decisions },
        options.session,
        options,
        io,
        undefined,
        undefined,
        budget,
      );
      return exit;
    }
    const fresh = !options.session || options.session === 'new';
    const sessionId = fresh ? randomUUID() : (options.session as string);
    // Said once the session exists: a run refused for want of a prompt, or by a full disk, names none.
    const announce = () => {
      if (fresh) io.stderr(styles(io.isTTY).dim(`session ${sessionId}\n`));
    };
    let prompt = options.prompt;
    if (prompt === undefined && io.stdinIsTTY && !options.json) {
      announce();
      exit = await chat(runner, sessionId, options, io, budget);
      return exit;
    }
    if (prompt === undefined) {
      // `--json` on a terminal reads the prompt as it is typed: said, or it looks like a hang.
      if (io.stdinIsTTY)
        io.stderr('reading the prompt from the terminal: type it, then Ctrl-D on a line of its own\n');
      prompt = (await readStdin()).trim();
    }
    if (prompt.length === 0) throw new CliError('no prompt: pass one as an argument or on stdin', EXIT.usage);
    const rl =
      io.stdinIsTTY && !options.json
        ? terminalReadline({ input: process.stdin, output: process.stderr })
        : undefined;
    try {
      exit = await invoke(runner, { input: prompt }, sessionId, options, io, rl, announce, budget);
      return exit;
    } finally {
      rl?.close();
    }
  } finally {
    unwatch();
    // A stopped run's close gets what is left of its wind-down (its store may be what does not
    // answer); a finished one gives its MCP servers the time they take to end gently.
    if (exit !== undefined && STOPPED.has(exit))
      await closeWithin(io, () => runtime.dispose(), budget.left());
    else await runtime.dispose();
  }
}

const DEFAULT_WAIT_MS = 30_000;

// The exit codes of a run stopped by a signal or by its output's reader going away.
const STOPPED: ReadonlySet<number> = new Set([
  EXIT.interrupted,
  EXIT.terminated,
  EXIT.hangup,
  EXIT.outputClosed,
]);

/** `--session` checked against the id rule (`new` aside): another id is a usage error. */
export function assertSessionOption(session: string | undefined): void {
  if (session === undefined || session === 'new') return;
  try {
    assertSessionId(session);
  } catch (error) {
    throw new CliError(`--session: ${(error as Error).message}`, EXIT.usage);
  }
}

/**
 * `--user` names someone: an empty or blank id would be no user at all, so `user:` keys would stay
 * in the session alone while the command line reads as if they were shared. A usage error.
 */
export function assertUserOption(user: string | undefined): void {
  if (user !== undefined && user.trim() === '')
    throw new CliError('--user needs a user id (leave --user out for a run with no user)', EXIT.usage);
}

/** `--wait` in ms (0 without it), and `--session` and `--user` checked: each a usage error. */
function waitMs(options: RunCommandOptions): number {
  assertSessionOption(options.session);
  assertUserOption(options.user);
  if (options.wait === undefined || options.wait === false) return 0;
  if (options.wait === true) return DEFAULT_WAIT_MS;
  try {
    return parseDuration(options.wait, '--wait');
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
}

/** The decisions given by --approve, --deny, --answer and --answer-file. */
export async function decisionsOf(options: RunCommandOptions, cwd: string): Promise<ApprovalDecision[]> {
  const answers: ApprovalDecision[] = [];
  for (const pair of options.answer ?? []) {
    const [callId, text] = splitPair(pair, '--answer', 'TEXT');
    answers.push({ callId, approve: true, input: text });
  }
  for (const pair of options.answerFile ?? []) {
    const [callId, path] = splitPair(pair, '--answer-file', 'PATH');
    const text = await readText(
      createReadStream(resolve(cwd, path)),
      `--answer-file ${callId} (${path})`,
    ).catch((error: NodeJS.ErrnoException) => {
      if (error instanceof CliError) throw error;
      throw new CliError(
        `--answer-file ${callId}: cannot read ${path} (${error.code ?? error.message})`,
        EXIT.usage,
      );
    });
    answers.push({ callId, approve: true, input: text.replace(/\r?\n$/, '') });
  }
  return [
    ...(options.approve ?? []).map((callId) => ({ callId, approve: true })),
    ...(options.deny ?? []).map((callId) => ({ callId, approve: false, reason: options.reason })),
    ...answers,
  ];
}

function splitPair(pair: string, flag: string, what: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new CliError(`${flag} takes CALL_ID=${what}, got "${pair}"`, EXIT.usage);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

/** Runs (or resumes) one invocation, rendering its events; returns the exit code. */
export async function invoke(
  runner: Runner,
  what: { input: string } | { resume: ApprovalDecision[] },
  sessionId: string,
  options: RunCommandOptions,
  io: Io,
  rl: Interface | undefined,
  announce?: () => void,
  budget?: WindDownBudget,
): Promise<number> {
  const spinner = options.json ? undefined : new Spinner(io.stderr, io.stderrIsTTY === true);
  const rendered = options.json ? jsonRenderer(io) : textRenderer(io, spinner);
  // A new session is named with the run's first event, when it exists: a run refused before it
  // (a full disk) leaves no id behind that names nothing.
  let first = announce !== undefined;
  const render: typeof rendered = (event) => {
    if (first) {
      first = false;
      announce?.();
    }
    rendered(event);
  };
  const controller = new AbortController();
  // Aborted by what ends the process, not only the run (SIGTERM, SIGHUP, the output's reader gone):
  // from then on the run's end is waited for only so long. Ctrl-C in a chat goes on to the next
  // message, which must not start under a run still ending; a second Ctrl-C quits at once.
  const ending = new AbortController();
  let interrupts = 0;
  // The first signal that stopped the run: its exit code is the run's (130, 143, 129).
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    spinner?.hold();
    stoppedBy ??= signal;
    if (signal !== 'SIGINT') ending.abort();
    if (interrupts > 1) process.exit(SIGNAL_EXIT[stoppedBy]);
    io.stderr(
      signal === 'SIGINT'
        ? '\ncancelling… (Ctrl-C again to quit at once)\n'
        : `\n${signal}: cancelling… (again to quit at once)\n`,
    );
    controller.abort(
      new AgentError(
        signal === 'SIGINT' ? 'cancelled by the user (Ctrl-C)' : `stopped by ${signal}`,
        'ABORTED',
      ),
    );
  };
  const onSigint = () => onSignal('SIGINT');
  // SIGTERM (a supervisor, `kill`, `timeout`) and SIGHUP (the terminal closed) cancel the run as
  // Ctrl-C does: its tools are stopped (a command's process group with them) and the session
  // says so; by default they would end the process with its tools' processes left running.
  const onSigterm = () => onSignal('SIGTERM');
  const onSighup = () => onSignal('SIGHUP');
  // Node's event loop ran empty while the run waits: nothing is left that could settle what it
  // waits on (a middleware's promise nobody resolves), and Node would exit 0 with the run
  // unfinished and nothing said. The run is stopped instead, naming what it waited on, so its
  // session ends properly; if even that cannot finish, the exit code still says it failed.
  let stalled = false;
  const onStalled = () => {
    if (stalled) {
      process.exitCode = EXIT.failed;
      return;
    }
    stalled = true;
    const waiting = runCodeInFlight();
    const on = waiting.length > 0 ? `${waiting.join(', ')} waits` : 'it waits';
    controller.abort(
      new AgentError(`the run can never finish: ${on} on a promise nothing can settle`, 'ABORTED'),
    );
  };
  process.on('beforeExit', onStalled);
  // A terminal in raw mode (readline owns it during the run) sends Ctrl-C as a key, not a signal.
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('SIGHUP', onSighup);
  rl?.on('SIGINT', onSigint);
  // Nobody reads the output any more: stop the run as cleanly as Ctrl-C does.
  const onOutputClosed = () => {
    ending.abort();
    controller.abort(new AgentError('the reader of the output went away (closed pipe)', 'ABORTED'));
  };
  if (io.outputClosed?.aborted) onOutputClosed();
  else io.outputClosed?.addEventListener('abort', onOutputClosed, { once: true });
  const common = {
    sessionId,
    wait: waitMs(options),
    userId: options.user,
    signal: controller.signal,
    onApproval: approver(options, io, rl, runner.agent, controller.signal, spinner),
    // Rendered as it happens, so a question is asked only after the calls it is about are shown.
    onEvent: render,
  };
  try {
    const run =
      'input' in what
        ? runner.run({ ...common, input: what.input })
        : runner.resume({ ...common, decisions: what.resume });
    // Events are rendered by onEvent as they happen; the run's own stream is not read, so it keeps none.
    const result = await windDown(ending.signal, invocationOutcome(run), budget);
    if (result === WOUND_DOWN_LATE) {
      spinner?.stop();
      io.stderr(
        `agentctl: the run did not end within ${CLOSE_WAIT_MS} ms of being stopped (a session store that does not answer, or a tool that does not stop); exiting without it: session ${sessionId} keeps what was stored, and can be continued once its lease lapses\n`,
      );
      if (stoppedBy) return SIGNAL_EXIT[stoppedBy];
      return io.outputClosed?.aborted ? EXIT.outputClosed : EXIT.failed;
    }
    if (io.outputClosed?.aborted) return EXIT.outputClosed;
    if (stoppedBy && isAgentError(result) && result.code === 'ABORTED') return SIGNAL_EXIT[stoppedBy];
    if (stalled && isAgentError(result) && result.code === 'ABORTED') return EXIT.failed;
    const corrupt = corruptSession(result);
    if (corrupt) {
      throw new CliError(
        `${corrupt.message}
${damagedSessionHint(corrupt, sessionsCommand(io, options, `rm ${shellQuote(sessionId)}`))}`,
        EXIT.failed,
      );
    }
    if (isAgentError(result) && result.cause instanceof SessionLeaseLostError) {
      // No interrupt of the user's: the run fell silent past its lease (stopped, suspended) and
      // another took the session over. What it did since is not in the session; the rest is whole.
      io.stderr(
        `agentctl: session ${sessionId} went on without this run, which was held up past its lease: what it did after that is not in the session\n`,
      );
      return EXIT.failed;
    }
    if (isAgentError(result)) {
      // The store's disk refused a write (full): the machine's failure, not a bug of agentctl's.
      const refused = result.code === 'INTERNAL_ERROR' ? systemRefusal(result.cause) : undefined;
      if (refused) {
        io.stderr(`agentctl: the run's session could not be stored: ${refused}\n`);
        return EXIT.failed;
      }
      return exitCodeOf(result.code);
    }
    if (result instanceof PausedSessionError) {
      const first = printable(result.pending[0] ?? 'CALL_ID');
      const resume = resumeCommand(io, options, result.agent ?? runner.agent.name, sessionId);
      throw new CliError(
        `session ${sessionId} is paused: ${result.pending.map(printable).join(', ')} wait${result.pending.length === 1 ? 's' : ''} for a decision before it takes a new prompt; resume it with \`${resume} --approve ${first}\` (or --deny ${first} --reason "...", or --answer ${first}="..." for a question), or start a new session`,
        EXIT.usage,
      );
    }
    if (result instanceof UsageError) throw new CliError(result.message, EXIT.usage);
    if (result instanceof SessionBusyError) {
      const hint = options.wait ? '' : '; pass --wait [DURATION] to wait for it';
      throw new CliError(`${result.message}${hint}`, EXIT.failed);
    }
    if (result instanceof Error) throw result;
    reportPause(result as InvocationResult, runner.agent.name, sessionId, options, io);
    return EXIT.ok;
  } finally {
    spinner?.stop();
    process.off('beforeExit', onStalled);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('SIGHUP', onSighup);
    rl?.off('SIGINT', onSigint);
    io.outputClosed?.removeEventListener('abort', onOutputClosed);
  }
}

/** True for the code of a run stopped by SIGTERM or SIGHUP: a chat ends with it (Ctrl-C only cancels its run). */
export function stopsChat(code: number): boolean {
  return code === EXIT.terminated || code === EXIT.hangup;
}

// The exit code of a run stopped by a signal: 128 + the signal's number, as a shell reports it.
const SIGNAL_EXIT: Record<NodeJS.Signals, number> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
  SIGHUP: EXIT.hangup,
} as Record<NodeJS.Signals, number>;

// A `backend: memory` store lives as long as the process: a session named on the command line is
// never there from an earlier run, and this one's is gone when it exits.
function forgetfulStore(agent: string, session: string): string {
  return `agentctl: warning: agent ${agent} keeps its sessions in process memory (backend: memory), which ends with this run: --session ${session} starts empty and is not kept; use backend: file or postgres to continue a conversation across runs\n`;
}

// A session file the store cannot read, or whose parts disagree (edited by hand, damaged on disk,
// imported from elsewhere): the user's to fix, not a bug of agentctl's. By name: the file store is
// loaded only when a project uses it.
function corruptSession(result: unknown): Error | undefined {
  for (let error = result; error instanceof Error; error = error.cause) {
    if (error.name === 'CorruptSessionError' || error.name === 'DamagedSessionError') return error;
  }
  return undefined;
}

/** The exit code of a run that ended with an error of this code. */
export function exitCodeOf(code: string): number {
  return code === 'ABORTED' ? EXIT.interrupted : code === 'INTERNAL_ERROR' ? EXIT.internal : EXIT.failed;
}

function approver(
  options: RunCommandOptions,
  io: Io,
  rl: Interface | undefined,
  agent: Agent,
  signal: AbortSignal,
  spinner: Spinner | undefined,
): RunOptions['onApproval'] {
  // Asked only once the agent's policy says "ask": its deny rules have already refused what they match.
  const rules = parseAllowRules(options.allow ?? []);
  const ask = rl ? prompter(io, rl, signal, spinner) : undefined;
  if (rules.length === 0 && !options.approveAll) return ask;
  const allows = allowMatcher(rules, agent);
  return async (pending) => {
    // A question is for a person: no rule answers it.
    if (pending.kind === 'input') return ask?.(pending);
    if (options.approveAll || allows(pending.call)) return true;
    return ask?.(pending); // undefined leaves the call pending: the run pauses
  };
}

function prompter(
  io: Io,
  rl: Interface,
  signal: AbortSignal,
  spinner: Spinner | undefined,
): (pending: PendingApproval) => Promise<ApprovalDecision | undefined> {
  const s = styles(io.isTTY);
  // One question at a time: parallel branches may ask at once.
  let queue: Promise<unknown> = Promise.resolve();
  // Ctrl-C while a question waits rejects it with the run's reason, so the run ends ABORTED. The
  // input ending instead (Ctrl-D, the terminal gone) is no answer: undefined, and nothing more is asked.
  const question = (text: string): Promise<string | undefined> =>
    rl.question(text, { signal }).then(
      (answer) => answer.trim(),
      (error: NodeJS.ErrnoException) => {
        if (signal.aborted) return Promise.reject(signal.reason);
        // What follows starts below the prompt left unanswered (a closed input shows none).
        if (error.code !== 'ERR_USE_AFTER_CLOSE') io.stderr('\n');
        return undefined;
      },
    );
  const ask = async (pending: PendingApproval): Promise<ApprovalDecision | undefined> => {
    const args = printable(JSON.stringify(pending.call.arguments));
    const text =
      pending.kind === 'input'
        ? `${pending.call.name} asks: ${printable(pending.reason ?? '')}\nAnswer: `
        : `Allow ${pending.call.name}(${args})? [y/N] `;
    spinner?.hold();
    try {
      const answer = await question(s.yellow(text));
      // Undecided, the call waits in the session, paused, for a decision given with --approve or --answer.
      if (answer === undefined) return undefined;
      if (pending.kind === 'input') return { callId: pending.call.id, approve: true, input: answer };
      if (/^y(es)?$/i.test(answer)) return { callId: pending.call.id, approve: true };
      const reason = await question('Reason (optional): ');
      return { callId: pending.call.id, approve: false, reason: reason || undefined };
    } finally {
      spinner?.release();
    }
  };
  return (pending) => {
    const next = queue.then(() => ask(pending));
    queue = next.catch(() => undefined);
    return next;
  };
}

/** Tells on stderr which calls a paused run waits for and how to resume it. */
export function reportPause(
  result: Pick<InvocationResult, 'status' | 'pending'>,
  agent: string,
  sessionId: string,
  options: RunCommandOptions,
  io: Io,
): void {
  if (result.status !== 'paused' || options.json) return;
  const s = styles(io.isTTY);
  const pending = result.pending ?? [];
  const questions = pending.filter((p) => p.kind === 'input');
  io.stderr(s.yellow(`paused: ${pending.length} tool call(s) wait for a decision\n`));
  for (const p of pending) {
    const asks = p.kind === 'input' ? `  asks: ${printable(p.reason ?? '')}` : '';
    io.stderr(
      `  ${printable(p.call.id)}  ${p.call.name}(${printable(JSON.stringify(p.call.arguments))})${asks}\n`,
    );
  }
  // Typed as it can be run here: `node <script>` when no `agentctl` on the PATH is this program.
  const resume = resumeCommand(io, options, agent, sessionId);
  const decided = pending.filter((p) => p.kind !== 'input');
  // One call to decide: its id written in, so the line runs as printed.
  const id = decided.length === 1 ? printable(decided[0].call.id) : '<call id>';
  if (questions.length < pending.length)
    io.stderr(`resume with: ${resume} --approve ${id} (or --deny ${id} --reason "...")\n`);
  if (questions.length > 0)
    io.stderr(
      `answer with: ${resume} --answer ${questions[0].call.id}="<your answer>" (or --answer-file ${questions[0].call.id}=<file>)\n`,
    );
}

async function chat(
  runner: Runner,
  sessionId: string,
  options: RunCommandOptions,
  io: Io,
  budget: WindDownBudget,
): Promise<number> {
  const rl = terminalReadline({ input: process.stdin, output: process.stderr, terminal: true });
  const s = styles(io.isTTY);
  io.stderr(s.dim(`chatting with ${runner.agent.name}; an empty line or Ctrl-D ends the chat\n`));
  let code: number = EXIT.ok;
  try {
    while (true) {
      let line: string;
      try {
        line = (await rl.question(s.bold('you> '))).trim();
      } catch {
        break;
      }
      if (line.length === 0) break;
      // Ctrl-C at the `you>` prompt closes readline and ends the chat; during a run, invoke cancels it.
      code = await invoke(runner, { input: line }, sessionId, options, io, rl, undefined, budget);
      if (stopsChat(code)) break;
    }
  } finally {
    rl.close();
  }
  return code;
}
