import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The built module, in a process of its own: a signal ends that process, not the test's.
const MODULE = pathToFileURL(join(import.meta.dirname, '../dist/write-chunks-to-file.js')).href;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('writeChunksToFile', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stopped by %s midway: the file is left as it was, no temp file, and the process dies of the signal',
    async (signal) => {
      const dir = await mkdtemp(join(tmpdir(), 'agentctl-chunks-'));
      dirs.push(dir);
      const target = join(dir, 'out.json');
      await writeFile(target, 'before\n');
      // A first chunk, then a wait that never ends: the write is stopped halfway, by the signal.
      const script = `
        import { writeChunksToFile } from ${JSON.stringify(MODULE)};
        async function* chunks() { yield 'x'.repeat(100000); await new Promise(() => setInterval(() => {}, 1000)); }
        await writeChunksToFile(process.argv[1], chunks());
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, target], {
        stdio: 'ignore',
      });
      const ended = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('close', (_code, sig) => resolve(sig)),
      );
      const temp = async () => (await readdir(dir)).find((name) => name.endsWith('.tmp'));
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the writer exited first (${child.exitCode})`);
        const name = await temp();
        if (name && (await stat(join(dir, name))).size === 100000) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill(signal);
      expect(await ended).toBe(signal);
      expect(await readdir(dir)).toEqual(['out.json']);
      expect(await readFile(target, 'utf8')).toBe('before\n');
    },
  );
});
