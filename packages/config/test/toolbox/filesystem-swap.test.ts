import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgent, createApprovalPolicy } from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { filesystem } from '../../src/toolbox/filesystem.js';

// Swaps `notes` for a link to each target in turn, and back, `count` times as fast as it can,
// printing "go" once started and "done N" at the end.
const SWAPPER = `
const fs = require('node:fs');
const [root, count, ...targets] = process.argv.slice(1);
const notes = root + '/notes', kept = root + '/notes.kept';
process.stdout.write('go\\n');
let n = 0;
for (; n < Number(count); n++) {
  try {
    fs.renameSync(notes, kept);
    fs.symlinkSync(targets[n % targets.length], notes);
    fs.unlinkSync(notes);
    fs.renameSync(kept, notes);
  } catch {}
}
process.stdout.write('done ' + n + '\\n');
`;

let base = '';
let swapper: ChildProcess | undefined;
afterEach(async () => {
  if (swapper && swapper.exitCode === null) swapper.kill();
  swapper = undefined;
  await rm(base, { recursive: true, force: true });
});

async function tree(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(folder, { recursive: true, withFileTypes: true }))
    if (name.isFile()) {
      const file = path.join(name.parentPath, name.name);
      out[path.relative(folder, file)] = await readFile(file, 'utf8');
    }
  return out;
}

describe('the filesystem tools while a folder is swapped for a link', () => {
  it('never read, list or write outside the root, under a deny rule, or past what an allow rule covers', async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-swap-')));
    const root = path.join(base, 'root');
    const outside = path.join(base, 'outside');
    for (const folder of ['notes', 'secret', 'other'])
      await mkdir(path.join(root, folder), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(root, 'notes', 'a.txt'), 'inside marker-in');
    await writeFile(path.join(root, 'secret', 'a.txt'), 'denied marker-secret');
    // Read freely (reads ask nobody), but written only with approval: the allow rule covers notes/ alone.
    await writeFile(path.join(root, 'other', 'a.txt'), 'unlisted marker-other');
    await writeFile(path.join(outside, 'a.txt'), 'outside marker-out');
    // Its name must not be listed either.
    await writeFile(path.join(outside, 'name-out.txt'), '');
    const untouched = {
      outside: await tree(outside),
      secret: await tree(path.join(root, 'secret')),
      other: await tree(path.join(root, 'other')),
    };

    // Writes need approval; the allow rule lets those into notes/ run without asking.
    const tools = filesystem({ root });
    const approvalPolicy = createApprovalPolicy({
      allow: [
        { tool: '*', args: { path: 'notes/*' } },
        { tool: '*', args: { path: 'notes' } },
      ],
      deny: [
        { tool: '*', args: { path: 'secret/*' } },
        { tool: '*', args: { path: 'secret' } },
      ],
    });
    const calls = (run: number) => [
      { name: 'read_file', arguments: { path: 'notes/a.txt' } },
      { name: 'list_dir', arguments: { path: 'notes' } },
      { name: 'grep', arguments: { pattern: 'marker', path: 'notes' } },
      { name: 'grep', arguments: { pattern: 'marker' } },
      { name: 'find_files', arguments: { pattern: '**/*.txt' } },
      { name: 'find_files', arguments: { pattern: 'notes/*' } },
      { name: 'find_files', arguments: { pattern: '*', path: 'notes' } },
      { name: 'find_files', arguments: { pattern: '**/*' } },
      { name: 'write_file', arguments: { path: `notes/w${run}.txt`, content: `written ${run}` } },
      { name: 'write_file', arguments: { path: `notes/sub${run}/w.txt`, content: `written ${run}` } },
      { name: 'edit_file', arguments: { path: 'notes/a.txt', old_text: 'inside', new_text: 'inside' } },
    ];

    const swapping = spawn(
      process.execPath,
      ['-e', SWAPPER, root, '30000', outside, path.join(root, 'secret'), path.join(root, 'other')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    swapper = swapping;
    let said = '';
    swapping.stdout?.on('data', (chunk) => {
      said += String(chunk);
    });
    await new Promise<void>((resolve) => swapping.stdout?.once('data', () => resolve()));

    const results: string[] = [];
    // Bounded by count: as many runs as the swapper keeps swapping, at most 300.
    for (let run = 0; run < 300 && !said.includes('done'); run++) {
      const agent = createAgent({
        name: 'files',
        provider: scriptedModel([{ toolCalls: calls(run) }, { text: 'ok' }]),
        tools,
        approvalPolicy,
      });
      const result = await agent.run('go');
      results.push(...result.toolCalls.map((call) => String(call.result)));
    }
    if (swapping.exitCode === null && swapping.signalCode === null) {
      const closed = new Promise((resolve) => swapping.once('exit', resolve));
      swapping.kill();
      await closed;
    }

    const seen = results.join('\n');
    expect(seen).not.toContain('marker-out');
    expect(seen).not.toContain('name-out');
    expect(seen).not.toContain('marker-secret');
    expect(await tree(outside)).toEqual(untouched.outside);
    expect(await tree(path.join(root, 'secret'))).toEqual(untouched.secret);
    expect(await tree(path.join(root, 'other'))).toEqual(untouched.other);
    // The calls did run while the folder was in place: some reads saw notes/a.txt.
    expect(seen).toContain('marker-in');
  }, 60_000);
});
