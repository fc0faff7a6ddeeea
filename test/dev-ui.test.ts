import { existsSync } from 'node:fs';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agentctl, REPO, removeTempDirs, tempProject } from './support/cli.js';
import { liveEvents } from './support/live-events.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';
import { waitFor } from './support/wait-for.js';

// A built page as esbuild makes one, until the test runs against @agentctl/ui's own build.
const PAGE = join(REPO, 'packages/server/test/fixtures/page');
const TOKEN = 'dev-ui-token';
const HELLO =
  'kind: agent\nname: hello\ndescription: Says hello\nmodel: offline/echo\ninstruction: Be brief.\n';
const DESK = `kind: agent
name: desk
model: offline/echo
tools:
  - builtin: current_time
sub_agents: [hello]
`;

const running: LongRunning[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});
afterAll(removeTempDirs);

async function devUi(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  const started = await startLongRunning(
    cwd,
    ['dev', '--ui', ...args, '--port', '0'],
    { AGENTCTL_UI_DIR: PAGE, ...env },
    /ui: (http:\/\/\S+)\n/,
  );
  running.push(started);
  return { ...started, url: started.match[1] };
}

describe('agentctl dev --ui', () => {
  it('serves the project, its reload state and the page; a broken save and its fix arrive live', async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO, 'agents/desk.yaml': DESK });
    const dev = await devUi(root, ['hello'], { AGENTCTL_SERVE_TOKEN: TOKEN });
    // The printed address signs a browser in and opens the page on the agent.
    expect(dev.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/ui/\\?token=${TOKEN}#agent=hello$`));
    const base = new URL(dev.url).origin;
    const auth = { authorization: `Bearer ${TOKEN}` };

    const project = await (await fetch(`${base}/project`, { headers: auth })).json();
    expect(project).toMatchObject({ generation: 1, root });
    expect(project.agents.map((a: { name: string }) => a.name)).toEqual(['desk', 'hello']);
    expect(project.agents[0]).toMatchObject({
      name: 'desk',
      source: { file: 'agents/desk.yaml', line: 2, column: 7 },
      subAgents: ['hello'],
      transfers: ['hello'],
      tools: [
        { name: 'current_time', kind: 'builtin', source: { file: 'agents/desk.yaml', line: 5, column: 5 } },
      ],
      runnable: true,
    });
    expect(project.agents[1]).toMatchObject({ description: 'Says hello', transfers: ['desk'] });
    const status = await (await fetch(`${base}/project/status`, { headers: auth })).json();
    expect(status).toMatchObject({ watching: true, generation: 1, ok: true, diagnostics: [] });

    const signIn = await fetch(dev.url, { redirect: 'manual' });
    expect(signIn.status).toBe(302);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    await signIn.body?.cancel();
    const page = await fetch(`${base}/ui/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('fixture page');

    const events = liveEvents(await fetch(`${base}/project/events`, { headers: auth }));
    try {
      await events.waitFor((e) => e.event === 'status');
      await writeFile(join(root, 'agents/hello.yaml'), `${HELLO}limits: { max_iterations: [ }\n`);
      const failed = await events.waitFor((e) => e.data.includes('"ok":false'));
      const broken = JSON.parse(failed.data);
      expect(broken).toMatchObject({ watching: true, generation: 1, ok: false });
      // The YAML error where it is, and what it breaks elsewhere (desk's sub-agent).
      const at = (file: string) => broken.diagnostics.find((d: { file: string }) => d.file === file);
      expect(at('agents/desk.yaml')).toMatchObject({ code: 'unresolved-reference', line: 6 });
      expect(at('agents/hello.yaml')).toMatchObject({
        severity: 'error',
        file: 'agents/hello.yaml',
        line: 6,
        column: expect.any(Number),
        code: expect.any(String),
      });
      // The last good generation keeps serving meanwhile.
      const still = await (await fetch(`${base}/project`, { headers: auth })).json();
      expect(still.generation).toBe(1);

      await writeFile(join(root, 'agents/hello.yaml'), HELLO.replace('Says hello', 'Says hello again'));
      const fixed = JSON.parse((await events.waitFor((e) => e.data.includes('"generation":2'))).data);
      expect(fixed).toMatchObject({
        generation: 2,
        ok: true,
        diagnostics: [],
        changes: expect.stringContaining('~hello'),
      });
      const after = await (await fetch(`${base}/project`, { headers: auth })).json();
      expect(after.generation).toBe(2);
      expect(after.agents[1].description).toBe('Says hello again');
    } finally {
      await events.close();
    }
    // Ctrl-C stops it like serve.
    expect(await dev.stop('SIGINT')).toBe(0);
  });

  it('prints the bare address without a token, and runs the page agent over the API', async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO });
    const dev = await devUi(root, [], { AGENTCTL_SERVE_TOKEN: undefined });
    expect(dev.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/$/);
    const base = new URL(dev.url).origin;
    const run = await fetch(`${base}/agents/hello/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi there', stream: false }),
    });
    const result = await run.json();
    expect(result).toMatchObject({ status: 'complete', output: 'hi there' });
    // The timeline's model call: which model, how long.
    const session = await (await fetch(`${base}/sessions/${result.sessionId}`)).json();
    const usage = session.events.find((e: { type: string }) => e.type === 'usage');
    expect(usage).toMatchObject({ model: 'echo', duration: expect.any(Number) });
  });

  it("serves @agentctl/ui's built page, found through the CLI's dependency", async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO });
    const dev = await devUi(root, ['hello'], { AGENTCTL_UI_DIR: undefined });
    const base = new URL(dev.url).origin;
    const page = await fetch(`${base}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    expect(html).toBe(await readFile(join(REPO, 'packages/ui/dist/index.html'), 'utf8'));
    const script = /src="\.?\/?([^"]*app-[A-Z0-9]{8}\.js)"/.exec(html);
    expect(script, html).not.toBeNull();
    const asset = await fetch(`${base}/ui/${script![1].replace(/^ui\//, '')}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await asset.text();
  });

  it('refuses what it cannot do, with a clear message and exit 2', async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO });
    const cases: Array<[string[], Record<string, string | undefined>, RegExp]> = [
      [
        ['dev', '--ui', 'nobody', '--port', '0'],
        { AGENTCTL_UI_DIR: PAGE },
        /no agent named "nobody"\. Agents in this project: hello/,
      ],
      [
        ['dev', '--ui', '--json', '--port', '0'],
        { AGENTCTL_UI_DIR: PAGE },
        /--json is for the terminal chat, not --ui/,
      ],
      [['dev'], {}, /name the agent to chat with: agentctl dev <agent>/],
      [['dev', 'hello', '--port', '0'], {}, /--port is for --ui/],
      [['serve', '--ui', '--port', '0'], { AGENTCTL_UI_DIR: root }, /AGENTCTL_UI_DIR=.* has no index\.html/],
    ];
    for (const [args, env, message] of cases) {
      const result = await agentctl(args, { cwd: root, env });
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.code, args.join(' ')).toBe(2);
    }
  });
});

describe('agentctl dev --ui with a module that never finishes loading', () => {
  it('takes the fixed module at the next save, and stops at once on Ctrl-C while one is stuck', async () => {
    const tool = (value: string) =>
      `export default { name: 't', description: 't', parameters: { type: 'object', properties: {} }, execute: () => '${value}' };\n`;
    const root = await tempProject({
      'agents/hello.yaml': `${HELLO}tools: [{ module: ../tools/t.js }]\n`,
      'tools/t.js': tool('v1'),
    });
    const marker = join(root, 'importing');
    const stuck = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '');\nwhile (true) {}\n`;
    const dev = await devUi(root, [], { AGENTCTL_SERVE_TOKEN: undefined });
    const base = new URL(dev.url).origin;
    await writeFile(join(root, 'tools/t.js'), stuck);
    await waitFor(() => existsSync(marker), 'the module started loading', 60_000);
    await writeFile(join(root, 'tools/t.js'), tool('v2'));
    const deadline = Date.now() + 90_000;
    while ((await (await fetch(`${base}/project/status`)).json()).generation !== 2) {
      if (Date.now() > deadline) throw new Error(`no generation 2; stderr:\n${dev.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The fixed save replaced the stuck reload: the module's 30 s limit never ran out.
    expect(dev.stderr()).not.toMatch(/did not finish loading/);

    await rm(marker);
    await writeFile(join(root, 'tools/t.js'), stuck);
    await waitFor(() => existsSync(marker), 'the module started loading', 60_000);
    expect(await dev.stop('SIGINT', 90_000)).toBe(0);
    // Ctrl-C did not wait for the limit to fail the stuck reload.
    expect(dev.stderr()).not.toMatch(/did not finish loading/);
  }, 200_000);
});

describe('agentctl dev --ui in a folder with symlink loops', () => {
  it('starts, reloads on a save, and watches each folder once', async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO });
    await symlink('self', join(root, 'self'));
    await symlink('..', join(root, 'agents/loop'));
    const dev = await devUi(root, [], { AGENTCTL_SERVE_TOKEN: undefined });
    const base = new URL(dev.url).origin;
    await writeFile(join(root, 'agents/hello.yaml'), HELLO.replace('Says hello', 'Says hi'));
    const deadline = Date.now() + 60_000;
    while ((await (await fetch(`${base}/project/status`)).json()).generation !== 2) {
      if (Date.now() > deadline) throw new Error(`no generation 2; stderr:\n${dev.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(dev.stderr()).not.toMatch(/ELOOP|cannot watch|\n\s+at /);
    expect(await dev.stop('SIGINT')).toBe(0);
  });
});

describe('agentctl serve --ui', () => {
  it('adds the page to serve, signed in by the printed address', async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO });
    const serve = await startLongRunning(
      root,
      ['serve', '--ui', '--port', '0'],
      { AGENTCTL_UI_DIR: PAGE, AGENTCTL_SERVE_TOKEN: TOKEN },
      /listening on (http:\/\/\S+)\nui: (http:\/\/\S+)\n/,
    );
    running.push(serve);
    const [, base, ui] = serve.match;
    expect(ui).toBe(`${base}/ui/?token=${TOKEN}`);
    const status = await (
      await fetch(`${base}/project/status`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json();
    expect(status).toMatchObject({ watching: false, generation: 1, ok: true, diagnostics: [] });
    const locked = await fetch(`${base}/ui/`);
    expect(locked.status).toBe(401);
    expect(await locked.text()).toContain('needs a token');
  });

  it('prints a page address a browser can open when it listens on every interface', async () => {
    const root = await tempProject({ 'agents/hello.yaml': HELLO });
    const serve = await startLongRunning(
      root,
      ['serve', '--ui', '--host', '0.0.0.0', '--port', '0'],
      { AGENTCTL_UI_DIR: PAGE, AGENTCTL_SERVE_TOKEN: TOKEN },
      /listening on (http:\/\/\S+)\nui: (http:\/\/\S+)\n/,
    );
    running.push(serve);
    const [, base, ui] = serve.match;
    expect(base).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const port = new URL(base).port;
    expect(ui).toBe(`http://127.0.0.1:${port}/ui/?token=${TOKEN}`);
    const page = await fetch(ui, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('set-cookie')).toContain('agentctl_token=');
  });
});
