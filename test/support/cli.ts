import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The repository root, which is also the example project. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The built command, as users run it. */
export const BIN = join(REPO, 'packages/cli/bin/agentctl.js');
/** Files the end-to-end tests read. */
export const FIXTURES = join(REPO, 'test/fixtures');

/** What a finished `agentctl` process left behind. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link agentctl}. */
export interface CliOptions {
  cwd?: string;
  /** Written to stdin, which is then closed; stdin is an empty pipe when left out. */
  input?: string;
  /** Variables to add; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** The process is killed after this long (a hang must fail the test, not the suite). */
  timeoutMs?: number;
}

/**
 * The environment of a child `agentctl`: this process's, with colours off and without the CI
 * variables that change its defaults (GitHub Actions switches validate to annotations).
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['GITHUB_ACTIONS', 'FORCE_COLOR', 'CI', 'NODE_OPTIONS']) delete env[name];
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs the real `agentctl` binary as a child process and collects its output and exit code. */
export function agentctl(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO,
    env: cliEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  return outcome(child, `agentctl ${args.join(' ')}`, options.timeoutMs ?? 30_000);
}

/** Runs a command line agentctl printed, as a user pastes it into a POSIX shell in `cwd`. */
export function pasteLine(line: string, cwd: string, timeoutMs = 30_000): Promise<CliResult> {
  const child = spawn('sh', ['-c', line], { cwd, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  return outcome(child, line, timeoutMs);
}

// What a child printed and how it exited; killed, and the wait failed naming `what`, past `timeoutMs`.
function outcome(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
  what: string,
  timeoutMs: number,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not finish; stderr so far:\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Temp folders made by {@link tempDir}, removed by {@link removeTempDirs}. */
const made: string[] = [];

/** A new empty folder under the system temp folder. */
export async function tempDir(prefix = 'agentctl-e2e-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A new temp folder (see {@link tempDir}) holding `files` (path relative to it -> text). */
export async function tempProject(
  files: Record<string, string | Uint8Array>,
  prefix?: string,
): Promise<string> {
  const dir = await tempDir(prefix);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** Removes every folder {@link tempDir} made; call it from `afterAll`. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A copy of `test/fixtures/projects/<name>` in a temp folder, so runs leave the repository alone. */
export async function fixtureProject(name: string): Promise<string> {
  const dir = await tempDir(`agentctl-${name}-`);
  await cp(join(FIXTURES, 'projects', name), dir, { recursive: true });
  return dir;
}

// The example files these tests rely on; copying only these keeps an unrelated example that is
// being edited from failing the CLI's tests.
const EXAMPLE_FILES = [
  'agentctl.yaml',
  'agents/hello.yaml',
  'agents/toolsmith.yaml',
  'agents/tools/word-count.ts',
  'agents/models.yaml',
  'agents/team.yaml',
  'agents/scripts/support.yaml',
];

/** A copy of the example agents hello, toolsmith, greeter and support in a temp folder. */
export async function exampleProject(): Promise<string> {
  const dir = await tempDir('agentctl-examples-');
  for (const file of EXAMPLE_FILES) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await cp(join(REPO, file), join(dir, file));
  }
  return dir;
}

/** The NDJSON lines of `--json` output, each parsed; fails on a line that is not JSON. */
export function parseNdjson(stdout: string): Array<Record<string, unknown> & { type: string }> {
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as Record<string, unknown> & { type: string };
    } catch {
      throw new Error(`stdout line ${i + 1} is not JSON: ${JSON.stringify(line)}`);
    }
  });
}

/** Whether a session waits for a decision, as another `agentctl` process sees it. */
export async function isSessionPaused(cwd: string, session: string): Promise<boolean> {
  const { stdout } = await agentctl(['sessions', 'list', '--json'], { cwd });
  const row = (JSON.parse(stdout) as Array<{ id: string; paused: boolean }>).find((s) => s.id === session);
  if (!row) throw new Error(`no session ${session} in:\n${stdout}`);
  return row.paused;
}
