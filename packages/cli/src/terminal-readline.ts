import { createInterface, type Interface, type ReadLineOptions } from 'node:readline/promises';
import type { ReadStream } from 'node:tty';

const hangupTolerant = new WeakSet<ReadStream>();
// The terminal refused to have its mode set: it is gone.
let hungUp = false;

/**
 * `createInterface` for the process's stdin when it is a terminal (questions, the chat prompt).
 * A terminal that hangs up (its window closed, the SSH connection dropped) ends stdin at once, and
 * readline then sets the terminal's mode back, which the kernel refuses with `EIO`: thrown from
 * readline's own handler, that would end the process before its SIGHUP handler could stop the run
 * and close its session. A terminal that is gone has no mode to restore, so that refusal is ignored.
 */
export function terminalReadline(options: ReadLineOptions): Interface {
  const stdin = options.input as ReadStream;
  if (stdin.isTTY && !hangupTolerant.has(stdin)) {
    hangupTolerant.add(stdin);
    const setRawMode = stdin.setRawMode.bind(stdin);
    stdin.setRawMode = (mode: boolean) => {
      try {
        return setRawMode(mode);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EIO') throw error;
        hungUp = true;
        return stdin;
      }
    };
    // Node 20 restores the terminal's mode at exit too, and aborts (SIGABRT, a core dump) when the
    // terminal is gone. Ending by the hangup's own signal skips that, and reports what stopped it.
    process.once('exit', () => {
      if (!hungUp) return;
      process.removeAllListeners('SIGHUP');
      process.kill(process.pid, 'SIGHUP');
    });
  }
  return createInterface(options);
}
