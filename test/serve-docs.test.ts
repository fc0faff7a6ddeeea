import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, cliEnv, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { type ServeProcess, startServe, stopServers } from './support/serve.js';

// Every sh and js example of docs/serve.md runs against a real server (its URL swapped in), serving
// the project the page tells its reader to make: `agentctl init` and the page's YAML block.
const TOKEN = 'docs-token';
let server: ServeProcess;
let blocks: { lang: string; code: string }[];
const scripts: string[] = [];

beforeAll(async () => {
  const doc = await readFile(join(REPO, 'docs/serve.md'), 'utf8');
  blocks = [...doc.matchAll(/```(sh|js|yaml)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));
  const yaml = blocks.filter((b) => b.lang === 'yaml');
  expect(yaml, 'docs/serve.md gives the agents its examples talk to').toHaveLength(1);
  const dir = await tempDir('agentctl-serve-docs-');
  const init = await agentctl(['init', 'serve-demo'], { cwd: dir });
  expect(init.code, init.stderr).toBe(0);
  const project = join(dir, 'serve-demo');
  await writeFile(join(project, 'agents/serve-demo.yaml'), yaml[0].code);
  server = await startServe(project, [], { AGENTCTL_SERVE_TOKEN: TOKEN });
});
afterAll(async () => {
  await stopServers();
  await removeTempDirs();
  await Promise.all(scripts.map((f) => rm(f, { force: true })));
});

function exec(command: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO, env: cliEnv({ AGENTCTL_SERVE_TOKEN: TOKEN }) });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const local = (code: string) => code.replaceAll('http://127.0.0.1:8787', server.url);

describe('docs/serve.md examples', () => {
  it('every curl example succeeds and answers what the text says', async () => {
    const curls = blocks.filter((b) => b.lang === 'sh' && b.code.trimStart().startsWith('curl'));
    expect(curls.length).toBeGreaterThanOrEqual(4);
    const outputs: string[] = [];
    for (const block of curls) {
      const { code, out, err } = await exec('sh', ['-ec', local(block.code)]);
      expect(code, err).toBe(0);
      expect(out).not.toContain('"error"');
      outputs.push(out);
    }
    expect(outputs[0]).toContain('event: run_end');
    expect(JSON.parse(outputs[1])).toMatchObject({ status: 'complete', output: 'and again' });
    expect(JSON.parse(outputs[2]).events.length).toBeGreaterThan(0);
    expect(outputs[3]).toContain('"status":"paused"');
    expect(outputs[3]).toContain('"status":"complete"');
    expect(JSON.parse(outputs[4])).toMatchObject({
      watching: false,
      generation: 1,
      ok: true,
      diagnostics: [],
    });
  });

  it('the openai SDK and A2A SDK examples run', async () => {
    const js = blocks.filter((b) => b.lang === 'js');
    expect(js).toHaveLength(2);
    const expected = ['hello from the openai SDKstreamed wordsand over responses', 'hello over A2A'];
    for (const [i, block] of js.entries()) {
      // Inside the repository, so `openai` and `@a2a-js/sdk` resolve from its node_modules.
      const file = join(REPO, `test/.serve-doc-example-${i}.mjs`);
      scripts.push(file);
      await writeFile(file, local(block.code));
      const { code, out, err } = await exec(process.execPath, [file]);
      expect(code, err).toBe(0);
      expect(out.replace(/\n/g, '')).toBe(expected[i]);
    }
  });
});
