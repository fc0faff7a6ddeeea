import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, screenshot, warnNoChromium } from './support/browser.js';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';

// The dev UI in a real browser: the BUILT `agentctl dev --ui` on a copy of the example project
// (scripted offline models; housekeeper's write_file waits for approval), driven through Debian's
// Chromium. Every wait is on a condition with a generous bound: the page is slow under load, never wrong.
const TOKEN = 'browser-test-token';
const WAIT = { timeout: 30_000 };
const HELLO = `kind: agent
name: hello
description: Says hello back; runs offline with no key.
model: offline/echo
instruction: Be brief.
`;

// A tool that asks the person: the run pauses until the page sends an answer.
const ASKER = `kind: agent
name: asker
description: Asks which city
model: asker_script
tools: [{ builtin: user_input }]
---
kind: model
name: asker_script
provider: offline
model: script
script:
  - tool_calls: [{ id: ask_city, name: user_input, arguments: { question: Which city?, choices: [Oslo, Lima] } }]
  - text: Noted.
`;
// The same question from offline/auto, which keeps no state: a run paused by one process (the CLI)
// resumes in another (the server) with the same answers, as a real model would.
const SURVEYOR = `kind: agent
name: surveyor
description: Asks the person, on the stateless offline/auto model
model: offline/auto
tools: [{ builtin: user_input }]
`;
// A command tool (which asks before it runs, by default) on offline/auto, which calls every tool once.
const SHELL = `kind: agent
name: shell_user
description: Runs a command, once allowed
model: offline/auto
tools: [announce]
---
kind: tool
name: announce
description: Prints a line
parameters: { type: object, properties: { line: { type: string } }, required: [line] }
command: { argv: [echo, "{{ args.line }}"] }
`;

// A model that writes slowly, word by word: the page shows the words as they come.
const SLOW = `kind: agent
name: slow
description: Answers word by word
model: slow_script
---
kind: model
name: slow_script
provider: offline
model: script
script:
  - fallback: true
    text: one two three four five six
    delay_ms: 150
`;

let project: string;
let dev: LongRunning;
let url: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

warnNoChromium();

describe.skipIf(!HAS_CHROMIUM)('the dev UI in Chromium', () => {
  beforeAll(async () => {
    project = await tempDir('agentctl-ui-');
    await cp(join(REPO, 'agentctl.yaml'), join(project, 'agentctl.yaml'));
    await cp(join(REPO, 'agents'), join(project, 'agents'), { recursive: true });
    // files.yaml starts an MCP server from the repository's node_modules, which a copy has not.
    await rm(join(project, 'agents/files.yaml'));
    await writeFile(join(project, 'agents/hello.yaml'), HELLO);
    await writeFile(join(project, 'agents/asker.yaml'), ASKER);
    await writeFile(join(project, 'agents/surveyor.yaml'), SURVEYOR);
    await writeFile(join(project, 'agents/slow.yaml'), SLOW);
    await writeFile(join(project, 'agents/shell.yaml'), SHELL);
    dev = await startLongRunning(
      project,
      ['dev', '--ui', '--port', '0'],
      { AGENTCTL_SERVE_TOKEN: TOKEN, AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
    );
    url = dev.match[1];
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop('SIGKILL');
    await removeTempDirs();
  });

  it('signs in by the printed address and shows every agent with its file:line:col, sub-agent edges and tools', async () => {
    expect(url).toMatch(new RegExp(`/ui/\\?token=${TOKEN}$`));
    await page.goto(url);
    // The token left the address for the cookie.
    expect(page.url()).not.toContain('token=');
    const triage = page.locator('[data-agent="triage"]');
    await triage.waitFor(WAIT);
    expect(await triage.textContent()).toContain('agents/triage.yaml:4:7');
    expect(await triage.textContent()).toContain('Routes support questions to the right specialist');
    expect(await page.locator('[data-agent="billing"]').textContent()).toContain(
      'transfers to: triage, tech',
    );
    const housekeeper = await page.locator('[data-agent="housekeeper"]').textContent();
    for (const tool of ['shell', 'filesystem', 'todo']) expect(housekeeper).toContain(tool);
    expect(housekeeper).toContain('agents/housekeeper.yaml:12:5');
    expect(await page.locator('[data-agent="research"] .badge').first().textContent()).toBe('sequential');
    await page.locator('path.edge-sub[data-edge="triage->billing"]').waitFor({ state: 'attached', ...WAIT });
    await page
      .locator('path.edge-transfer[data-edge="billing->triage"]')
      .waitFor({ state: 'attached', ...WAIT });
    await expect.poll(() => page.locator('.status-badge').textContent(), WAIT).toBe('generation 1');
    await screenshot(page, 'graph');
  });

  it('chats with an agent, streams its tool calls, and resumes the run when a call is approved in the page', async () => {
    await page.goto(`${new URL(url).origin}/ui/#agent=housekeeper`);
    await page.locator('.chat-view:not([hidden])').waitFor(WAIT);
    expect(await page.locator('.chat-view select').inputValue()).toBe('housekeeper');
    await page.locator('.chat-form textarea').fill('tidy the notes');
    await page.locator('.chat-form button[type=submit]').click();

    const approval = page.locator('.decision[data-call="write_index"]');
    await approval.waitFor(WAIT);
    expect(await approval.textContent()).toContain('write_file');
    expect(await approval.textContent()).toContain('INDEX.md');
    // What ran at once is shown with its result; the write has not happened.
    await expect
      .poll(() => page.locator('.tool-call[data-call="look"] .tool-status').textContent(), WAIT)
      .toMatch(/^done/);
    await page.locator('.run-end[data-status="paused"]').waitFor(WAIT);
    await expect(readFile(join(project, 'agents/housekeeping/INDEX.md'), 'utf8')).rejects.toThrow();
    await screenshot(page, 'chat-approval');

    await approval.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
      'Indexed 2 notes in INDEX.md.',
    );
    await expect
      .poll(() => page.locator('.tool-call[data-call="write_index"] .tool-status').textContent(), WAIT)
      .toMatch(/^done/);
    expect(await readFile(join(project, 'agents/housekeeping/INDEX.md'), 'utf8')).toContain(
      '- notes/work.md',
    );
    await screenshot(page, 'chat');
  });

  it("opens that session's timeline: model calls with tokens and duration, tool calls with arguments and results", async () => {
    const session = await page.locator('.session-label code').textContent();
    expect(session).toBeTruthy();
    await page.locator('.session-label a', { hasText: 'timeline' }).click();
    await page.locator(`.session-item.current[data-session="${session}"]`).waitFor(WAIT);
    // One invocation: paused for the approval, resumed under the same id, complete.
    const invocation = page.locator('.invocation');
    await invocation.waitFor(WAIT);
    expect(await invocation.count()).toBe(1);
    expect(await invocation.locator('q').textContent()).toBe('tidy the notes');
    expect(await invocation.locator('header .badge').textContent()).toBe('complete');
    expect(await invocation.locator('.output').textContent()).toBe('Indexed 2 notes in INDEX.md.');
    const kinds = await page
      .locator('.entry')
      .evaluateAll((rows) => rows.map((r) => r.className.replace('entry entry-', '')));
    expect(kinds.filter((k) => k !== 'tool' && k !== 'state')).toEqual([
      'agent_start',
      'model',
      'model',
      'approval',
      'resumed',
      'agent_start',
      'model',
      'agent_end',
    ]);

    const models = page.locator('.entry-model');
    expect(await models.count()).toBe(3);
    expect(await models.first().locator('summary').textContent()).toMatch(
      /script housekeeper · \d+ in \/ \d+ out tokens · \d+ ms/,
    );
    await models.first().locator('summary').click();
    expect(await models.first().textContent()).toContain(
      'Request: the conversation up to this call (1 message)',
    );
    expect(await models.first().locator('.message.role-assistant').textContent()).toContain('todo(');

    const write = page.locator('.entry-tool', { hasText: 'write_file' });
    expect(await write.locator('summary').textContent()).toMatch(/write_file housekeeper · ok · \d+ ms/);
    await write.locator('summary').click();
    expect(await write.textContent()).toContain('"path": "INDEX.md"');
    expect(await page.locator('.entry-approval').textContent()).toContain('write_file');
    // Each call once, the approved one too (the resumed run calls it again under the same id).
    expect(
      await page.locator('.entry-tool summary .tool-name, .entry-tool summary strong').allTextContents(),
    ).toEqual(['todo', 'shell', 'shell', 'read_file', 'write_file', 'todo']);
    await screenshot(page, 'timeline');
  });

  it('denies a call in the page: the tool does not run and the model hears it was denied', async () => {
    await page.goto(`${new URL(url).origin}/ui/#agent=shell_user`);
    await page.locator('.chat-view:not([hidden])').waitFor(WAIT);
    await page.locator('.chat-form textarea').fill('announce something');
    await page.locator('.chat-form button[type=submit]').click();
    const approval = page.locator('.decision', { hasText: 'announce' });
    await approval.waitFor(WAIT);
    await approval.getByRole('button', { name: 'Deny' }).click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    const card = page.locator('.tool-call', { hasText: 'announce' });
    expect(await card.getAttribute('class')).toContain('failed');
    expect(await card.locator('.result').textContent()).toMatch(/denied/i);
  });

  it('asks for an answer in the page when a tool asks the person, and the answer becomes its result', async () => {
    await page.goto(`${new URL(url).origin}/ui/#agent=asker`);
    await page.locator('.chat-form textarea').fill('plan a trip');
    await page.locator('.chat-form button[type=submit]').click();
    const question = page.locator('.decision[data-call="ask_city"]');
    await question.waitFor(WAIT);
    expect(await question.locator('.reason').textContent()).toBe('Which city? (Oslo / Lima)');
    expect(await page.locator('.tool-call[data-call="ask_city"] .tool-status').textContent()).toBe(
      'waiting for your answer',
    );
    await question.getByRole('textbox', { name: 'Answer' }).fill('Oslo, by the fjord');
    await question.getByRole('button', { name: 'Answer' }).click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    expect(await page.locator('.tool-call[data-call="ask_city"] .result').textContent()).toContain(
      'Oslo, by the fjord',
    );
    expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe('Noted.');
  });

  it('opens a session paused by `agentctl run` in the chat, with its conversation, and answers it there', async () => {
    const paused = await agentctl(['run', 'surveyor', 'plan a trip', '--session', 'from-the-cli'], {
      cwd: project,
    });
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stderr).toContain('user_input(');
    await page.goto(`${new URL(url).origin}/ui/#view=sessions&session=from-the-cli`);
    const open = page.locator('.timeline a.continue');
    await open.waitFor(WAIT);
    expect(await open.textContent()).toBe('waiting for a decision: open in the chat');
    await open.click();
    await page.locator('.chat-view:not([hidden])').waitFor(WAIT);
    expect(await page.locator('.session-label code').textContent()).toBe('from-the-cli');
    await page.locator('.bubble.user', { hasText: 'plan a trip' }).waitFor(WAIT);
    const question = page.locator('.decision');
    await question.waitFor(WAIT);
    await question.getByRole('textbox', { name: 'Answer' }).fill('Lima');
    await question.getByRole('button', { name: 'Answer' }).click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    const show = await agentctl(['sessions', 'show', 'from-the-cli'], { cwd: project });
    expect(show.stdout, show.stderr).toContain('← user_input: Lima');
    expect(show.stdout).toMatch(/\(run ended: paused\)[\s\S]*← user_input: Lima/);
    expect(await page.locator('.bubble.user').allTextContents()).toEqual(['plan a trip']);
  });

  it('shows the text while the model writes it, before the run ends', async () => {
    await page.goto(`${new URL(url).origin}/ui/#agent=slow`);
    await page.locator('.chat-view:not([hidden])').waitFor(WAIT);
    await page.locator('.chat-form textarea').fill('count');
    await page.locator('.chat-form button[type=submit]').click();
    // Checked inside the page at every frame: some words shown, not all, and the run still going.
    await page.waitForFunction(
      () => {
        const text = document.querySelector('.chat-view .bubble.assistant .text')?.textContent ?? '';
        return (
          text.includes('one') && !text.includes('six') && !document.querySelector('.chat-view .run-end')
        );
      },
      null,
      { ...WAIT, polling: 'raf' },
    );
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
      'one two three four five six',
    );
  });

  it('keeps one session across messages', async () => {
    await page.goto(`${new URL(url).origin}/ui/#agent=hello`);
    const form = page.locator('.chat-form');
    for (const text of ['first message', 'second message']) {
      await form.locator('textarea').fill(text);
      await form.locator('button[type=submit]').click();
      await page.locator('.bubble.assistant', { hasText: text }).waitFor(WAIT);
      await page.locator('.chat-form button[type=submit]:not([disabled])').waitFor(WAIT);
    }
    const session = await page.locator('.session-label code').textContent();
    await page.goto(`${new URL(url).origin}/ui/#view=sessions&session=${session}`);
    await expect
      .poll(() => page.locator('.invocation q').allTextContents(), WAIT)
      .toEqual(['first message', 'second message']);
  });

  it('shows a broken save live with file:line:col, then the next generation once it is fixed', async () => {
    await page.goto(`${new URL(url).origin}/ui/#view=reload`);
    await page.locator('.reload-view .generation').waitFor(WAIT);
    expect(await page.locator('.reload-view .generation').textContent()).toBe('1');
    // An unknown key on line 6, column 1.
    await writeFile(join(project, 'agents/hello.yaml'), `${HELLO}temprature: 0.2\n`);
    const diagnostic = page.locator('.diagnostic', { hasText: 'agents/hello.yaml:6:1' });
    await diagnostic.waitFor(WAIT);
    expect(await diagnostic.textContent()).toMatch(/temprature/);
    expect(await page.locator('.status-badge').textContent()).toMatch(/^broken save · \d+ problems?$/);
    expect(await page.locator('.broken-note').textContent()).toContain('generation 1 keeps running');
    await screenshot(page, 'reload-broken');

    await writeFile(join(project, 'agents/hello.yaml'), HELLO.replace('Says hello back', 'Says hello again'));
    await page.locator('.status-badge.ok', { hasText: 'generation 2' }).waitFor(WAIT);
    expect(await page.locator('.reload-view .generation').textContent()).toBe('2');
    expect(await page.locator('.diagnostic').count()).toBe(0);
    // The graph follows the new generation.
    await page.locator('[data-nav="graph"]').click();
    await page.locator('[data-agent="hello"]', { hasText: 'Says hello again' }).waitFor(WAIT);
  });

  it('says how to get in when the server stops accepting the page', async () => {
    await context.clearCookies();
    await page.locator('[data-nav="sessions"]').click();
    await page.locator('.sign-in').waitFor(WAIT);
    expect(await page.locator('.sign-in').textContent()).toContain('/ui/?token=');
    // A fresh load without the cookie gets the server's own sign-in page.
    const response = await page.goto(`${new URL(url).origin}/ui/`);
    expect(response?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('needs a token');
  });
});
