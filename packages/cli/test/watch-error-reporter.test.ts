import { describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { watchErrorReporter } from '../src/watch-error-reporter.js';

const errnoError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('watchErrorReporter', () => {
  it('says once per problem what cannot be watched, with the fix for the limit of file watches', () => {
    const lines: string[] = [];
    const io = { stderr: (text: string) => lines.push(text) } as unknown as Io;
    const report = watchErrorReporter(io);
    const limit = errnoError(
      'ENOSPC',
      'ENOSPC: System limit for number of file watchers reached, watch /p/agents',
    );
    report(limit);
    report(limit);
    report(errnoError('EACCES', "EACCES: permission denied, scandir '/p/private'"));
    expect(lines).toEqual([
      'agentctl: cannot watch part of the project: ENOSPC: System limit for number of file watchers reached, watch /p/agents (the system limit of file watches is reached: raise fs.inotify.max_user_watches); saves there are not seen\n',
      "agentctl: cannot watch part of the project: EACCES: permission denied, scandir '/p/private'; saves there are not seen\n",
    ]);
  });
});
