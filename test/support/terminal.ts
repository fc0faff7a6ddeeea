import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cliEnv, REPO } from './cli.js';

/** A way to give a command a pseudo-terminal: python3's `pty` module or util-linux `script`. */
export interface TerminalDriver {
  name: string;
  /** The program and arguments that run `command` on a new terminal bridged to stdin/stdout. */
  wrap(command: string[]): [string, string[]];
}

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** The python3 `pty` driver, when python3 can import `pty`. */
function pythonDriver(): TerminalDriver | undefined {
  const python = spawnSync('python3', ['-c', 'import pty, select'], { stdio: 'ignore' });
  if (python.status !== 0) return undefined;
  const bridge = join(REPO, 'test/support/pty-bridge.py');
  return { name: 'python3 pty', wrap: (command) => ['python3', [bridge, ...command]] };
}

/** The util-linux `script` driver (`-e` passes the command's exit code on). */
function scriptDriver(): TerminalDriver | undefined {
  if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0) return undefined;
  return {
    name: 'script',
    wrap: (command) => ['script', ['-qfec', command.map(quote).join(' '), '/dev/null']],
  };
}

/** Every terminal driver this machine has, python3 first. */
export function terminalDrivers(): TerminalDriver[] {
  return [pythonDriver(), scriptDriver()].filter((d): d is TerminalDriver => d !== undefined);
}

/** Why terminal tests are skipped when {@link terminalDrivers} finds none. */
export const NO_TERMINAL =
  'neither python3 (with its pty module) nor util-linux `script` is installed, so no pseudo-terminal can be made';

/** What the terminal showed, without escape sequences or carriage returns, and the exit code. */
export interface TerminalResult {
  code: number | null;
  screen: string;
}

/**
 * Runs `agentctl ARGS` on a pseudo-terminal and types each answer once its prompt shows up
 * (after the previous prompt). A prompt that never shows fails with what the screen held.
 */
export function agentctlOnTerminal(
  driver: TerminalDriver,
  args: readonly string[],
  steps: ReadonlyArray<readonly [prompt: string, answer: string]>,
  options: { cwd: string; timeoutMs?: number },
): Promise<TerminalResult> {
  const [program, programArgs] = driver.wrap([process.execPath, BIN, ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn(program, programArgs, {
      cwd: options.cwd,
      env: cliEnv({ TERM: 'xterm' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let raw = '';
    let seen = 0;
    let step = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      raw += chunk;
      while (step < steps.length) {
        const at = raw.indexOf(steps[step][0], seen);
        if (at < 0) break;
        seen = at + steps[step][0].length;
        child.stdin.write(steps[step][1]);
        step++;
      }
    });
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      errors += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `agentctl ${args.join(' ')} on a terminal (${driver.name}) did not finish; waiting for ${JSON.stringify(steps[step]?.[0])}; screen:\n${clean(raw)}\n${errors}`,
        ),
      );
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen: clean(raw) });
    });
  });
}

function clean(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are the point.
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '');
}
