import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, screenshot, warnNoChromium } from './support/browser.js';
import { removeTempDirs, tempProject } from './support/cli.js';
import { freePort } from './support/free-port.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';

// The dev UI in Chromium on projects a careful user would not write: markup in descriptions, the
// longest names the format allows, no agents at all. The BUILT `agentctl dev --ui`, the built page.
const WAIT = { timeout: 30_000 };
const PROJECT = 'kind: project\nname: hostile\n';
// 64 characters, the most a name may have, with nowhere a browser would break the line by itself.
const LONG = `a${'_long'.repeat(12)}xyz`;
const HOSTILE = `kind: agent
name: ${LONG}
description: "<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script> ünïcødé"
model: offline/echo
instruction: hi
sub_agents: [plain]
tools: [{ builtin: current_time }]
`;
const PLAIN = `kind: agent
name: plain
description: '"><svg onload=window.__pwned=3>'
model: offline/echo
instruction: hi
`;

// Word by word, slowly enough to be cut off halfway.
const SLOW = `kind: agent
name: slow
model: slow_script
---
kind: model
name: slow_script
provider: offline
model: script
script:
  - fallback: true
    text: one two three four five six
    delay_ms: 200
`;

const running: LongRunning[] = [];
let browser: Browser;

warnNoChromium();

async function openPage(files: Record<string, string>): Promise<{ page: Page; root: string }> {
  const root = await tempProject(files, 'agentctl-ui-hostile-');
  const dev = await startLongRunning(
    root,
    ['dev', '--ui', '--port', '0'],
    { AGENTCTL_UI_DIR: undefined },
    /ui: (http:\/\/\S+)\n/,
  );
  running.push(dev);
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  // What the page's content security policy refused, to see that the page itself needs nothing it
  // refuses, and that it refuses what it should.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as { __refused?: string[] }).__refused = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(e.effectiveDirective));
  });
  await page.goto(dev.match[1]);
  return { page, root };
}

const refused = (page: Page) => page.evaluate(() => (window as { __refused?: string[] }).__refused);

describe.skipIf(!HAS_CHROMIUM)('the dev UI with hostile projects', () => {
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(running.splice(0).map((dev) => dev.stop('SIGKILL')));
  });
  afterAll(async () => {
    await browser?.close();
    await removeTempDirs();
  });

  it('shows markup in descriptions as text, and keeps the longest names inside their cards', async () => {
    const { page } = await openPage({
      'agentctl.yaml': PROJECT,
      'agents/hostile.yaml': HOSTILE,
      'agents/plain.yaml': PLAIN,
    });
    const card = page.locator(`[data-agent="${LONG}"]`);
    await card.waitFor(WAIT);
    await page
      .locator('path.edge')
      .first()
      .waitFor({ ...WAIT, state: 'attached' });
    expect(await card.locator('.description').textContent()).toBe(
      '<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script> ünïcødé',
    );
    expect(await page.locator('[data-agent="plain"] .description').textContent()).toBe(
      '"><svg onload=window.__pwned=3>',
    );
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await refused(page)).toEqual([]);
    // Markup that reached the page some other way would not run either: no inline script or handler.
    await page.evaluate(() => {
      document.body.insertAdjacentHTML('beforeend', '<img src="x" onerror="window.__pwned = 4">');
      const script = document.createElement('script');
      script.textContent = 'window.__pwned = 5';
      document.body.append(script);
    });
    await expect
      .poll(async () => (await refused(page))?.sort(), WAIT)
      .toEqual(['script-src-attr', 'script-src-elem']);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, 'hostile-names');
    // Every part of every card (name, chat link, transfers) is drawn inside the card, where it can be
    // read and clicked, not over the card beside it.
    const outside = await page.evaluate(() => {
      const found: string[] = [];
      for (const c of document.querySelectorAll<HTMLElement>('[data-agent]')) {
        const box = c.getBoundingClientRect();
        for (const part of c.querySelectorAll<HTMLElement>('*')) {
          const r = part.getBoundingClientRect();
          if (r.width === 0) continue;
          if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
            found.push(
              `${c.dataset.agent}: ${part.className || part.tagName} ${r.left}-${r.right} in ${box.left}-${box.right}`,
            );
        }
      }
      return found;
    });
    expect(outside).toEqual([]);
    await page.close();
  });

  it('keeps a word wider than the screen inside the chat, the timeline and the diagnostics', async () => {
    const { page, root } = await openPage({ 'agentctl.yaml': PROJECT, 'agents/plain.yaml': PLAIN });
    const origin = new URL(page.url()).origin;
    // What a part of the page draws beyond its right edge, and how wide the document became.
    const overflow = (selector: string) =>
      page.evaluate((selector) => {
        const view = document.querySelector(selector)!;
        const edge = view.getBoundingClientRect().right;
        const out = [...view.querySelectorAll<HTMLElement>('*')]
          .filter((e) => e.getBoundingClientRect().right > edge + 0.5)
          .map((e) => `${e.tagName}.${e.className}`);
        return { out, width: document.documentElement.scrollWidth, viewport: window.innerWidth };
      }, selector);
    const word = `https://example.com/${'a'.repeat(3000)}`;
    await page.goto(`${origin}/ui/#view=chat&agent=plain`);
    await page.locator('.chat-form textarea').fill(word);
    await page.locator('.chat-form button[type=submit]').click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    let seen = await overflow('.chat-log');
    expect(seen.out).toEqual([]);
    expect(seen.width).toBe(seen.viewport);

    await page.locator('.session-label a', { hasText: 'timeline' }).click();
    await page.locator('.invocation').waitFor(WAIT);
    for (const summary of await page.locator('.entry summary').all()) await summary.click();
    seen = await overflow('.sessions-view');
    expect(seen.out).toEqual([]);
    expect(seen.width).toBe(seen.viewport);
    // The timeline indents its entries without style attributes, which the page's policy refuses.
    expect(await refused(page)).toEqual([]);

    await writeFile(join(root, 'agents/plain.yaml'), `${PLAIN}${'x'.repeat(400)}: 1\n`);
    await page.goto(`${origin}/ui/#view=reload`);
    await page.locator('.diagnostic', { hasText: 'agents/plain.yaml:6:1' }).waitFor(WAIT);
    seen = await overflow('.reload-view');
    expect(seen.out).toEqual([]);
    expect(seen.width).toBe(seen.viewport);
    await page.close();
  });

  it('sends on Enter, but not on the Enter that ends an input method composition', async () => {
    const { page } = await openPage({ 'agentctl.yaml': PROJECT, 'agents/plain.yaml': PLAIN });
    await page.goto(`${new URL(page.url()).origin}/ui/#view=chat&agent=plain`);
    const box = page.locator('.chat-form textarea');
    await box.fill('こんにちは');
    // The keydown a browser sends when Enter picks the word of a Japanese input method.
    await box.evaluate((area) => {
      for (const init of [{ isComposing: true }, { keyCode: 229 }])
        area.dispatchEvent(
          new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init }),
        );
    });
    expect(await box.inputValue()).toBe('こんにちは');
    expect(await page.locator('.bubble.user').count()).toBe(0);
    await box.press('Enter');
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    expect(await page.locator('.bubble.user').allTextContents()).toEqual(['こんにちは']);
    await page.close();
  });

  it('shows a project with no agents, then its first agent once it is saved', async () => {
    const { page, root } = await openPage({ 'agentctl.yaml': PROJECT });
    await page.locator('.graph-view', { hasText: 'No agents (yet).' }).waitFor(WAIT);
    await page.locator('.status-badge.ok', { hasText: 'generation 1' }).waitFor(WAIT);
    // The agents folder is new too.
    await mkdir(join(root, 'agents'));
    await writeFile(join(root, 'agents/plain.yaml'), PLAIN);
    await page.locator('[data-agent="plain"]').waitFor(WAIT);
    expect(await page.locator('.status-badge').textContent()).toBe('generation 2');
    await page.close();
  });

  it('says so when the agent a chat is on is renamed away, instead of showing another one', async () => {
    const { page, root } = await openPage({
      'agentctl.yaml': PROJECT,
      'agents/plain.yaml': PLAIN,
      'agents/other.yaml': PLAIN.replace('name: plain', 'name: other'),
    });
    const origin = new URL(page.url()).origin;
    await page.goto(`${origin}/ui/#view=chat&agent=plain`);
    const select = page.locator('.chat-view select');
    await expect.poll(() => select.inputValue(), WAIT).toBe('plain');
    await writeFile(join(root, 'agents/plain.yaml'), PLAIN.replace('name: plain', 'name: renamed'));
    await page.locator('.status-badge.ok', { hasText: 'generation 2' }).waitFor(WAIT);
    await expect
      .poll(() => select.locator('option').allTextContents(), WAIT)
      .toEqual(['plain (no longer in the project)', 'other', 'renamed']);
    // The chat still names the agent its messages go to, and a message says why it cannot run.
    expect(await select.inputValue()).toBe('plain');
    await page.locator('.chat-form textarea').fill('still there?');
    await page.locator('.chat-form button').click();
    await page.locator('.chat-log .line.error', { hasText: 'no agent named "plain"' }).waitFor(WAIT);
    await page.close();
  });

  it('works in more tabs than a browser opens connections to one host, and keeps them all live', async () => {
    const root = await tempProject(
      { 'agentctl.yaml': PROJECT, 'agents/plain.yaml': PLAIN },
      'agentctl-ui-tabs-',
    );
    const dev = await startLongRunning(
      root,
      ['dev', '--ui', '--port', '0'],
      { AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
    );
    running.push(dev);
    // One browser profile: Chromium opens at most 6 connections to a host for all its tabs.
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const tabs: Page[] = [];
      for (let i = 0; i < 8; i++) {
        const tab = await context.newPage();
        await tab.goto(dev.match[1], WAIT);
        await tab.locator('.status-badge.ok', { hasText: 'generation 1' }).waitFor(WAIT);
        tabs.push(tab);
      }
      // A save reaches every tab, and still does once the tab that followed the stream is gone.
      const save = async (description: string, generation: number) => {
        await writeFile(
          join(root, 'agents/plain.yaml'),
          PLAIN.replace(/description: .*/, `description: ${description}`),
        );
        for (const tab of tabs) {
          await tab.locator('.status-badge.ok', { hasText: `generation ${generation}` }).waitFor(WAIT);
          await tab.locator('[data-agent="plain"] .description', { hasText: description }).waitFor(WAIT);
        }
      };
      await save('second', 2);
      await tabs.shift()!.close();
      await save('third', 3);
      // And the last tab still has a connection to chat on.
      const last = tabs.at(-1)!;
      await last.goto(`${new URL(dev.match[1]).origin}/ui/#view=chat&agent=plain`);
      await last.locator('.chat-form textarea').fill('still here?');
      await last.locator('.chat-form button[type=submit]').click();
      await last.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    } finally {
      await context.close();
    }
  });

  it('opens on a project broken at start: its problems with file:line:col, then the project once a save fixes it', async () => {
    const root = await tempProject(
      { 'agentctl.yaml': PROJECT, 'agents/plain.yaml': `${PLAIN}tools: [\n` },
      'agentctl-ui-broken-start-',
    );
    const port = await freePort();
    // It prints its ui: line once the project is valid; until then the page shows what is wrong.
    const started = startLongRunning(
      root,
      ['dev', '--ui', '--port', String(port)],
      { AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
    );
    started.then((dev) => running.push(dev)).catch(() => undefined);
    const origin = `http://127.0.0.1:${port}`;
    await expect
      .poll(
        () =>
          fetch(`${origin}/project/status`).then(
            (r) => r.status,
            () => 0,
          ),
        WAIT,
      )
      .toBe(200);
    // An agent route answers at once, saying why, instead of leaving the request hanging.
    const run = await fetch(`${origin}/agents/plain/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi', stream: false }),
    });
    expect(run.status).toBe(503);
    expect(((await run.json()) as { error: { code: string } }).error.code).toBe('project_invalid');

    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${origin}/ui/#view=reload`);
    await page.locator('.diagnostic', { hasText: 'agents/plain.yaml:6:8' }).waitFor(WAIT);
    expect(await page.locator('.status-badge').textContent()).toBe('broken save · 1 problem');
    expect(await page.locator('.broken-note').textContent()).toBe(
      'The project is broken: nothing runs until a save fixes it.',
    );
    await page.locator('[data-nav="sessions"]').click();
    await page.locator('.banner', { hasText: 'the project is not valid yet' }).waitFor(WAIT);
    await writeFile(join(root, 'agents/plain.yaml'), PLAIN);
    const dev = await started;
    expect(dev.match[1]).toBe(`${origin}/ui/`);
    await page.locator('.status-badge.ok', { hasText: 'generation 1' }).waitFor(WAIT);
    // What the server said while it served no project is gone with it, and the view shows what is.
    await page.locator('.sessions-view', { hasText: 'No sessions yet' }).waitFor(WAIT);
    expect(await page.locator('.banner').count()).toBe(0);
    await page.locator('[data-nav="graph"]').click();
    await page.locator('[data-agent="plain"]').waitFor(WAIT);
    await page.close();
  });

  it('starts a new session while a run still streams: the run goes on in its own session, not in the new one', async () => {
    const { page } = await openPage({ 'agentctl.yaml': PROJECT, 'agents/slow.yaml': SLOW });
    const origin = new URL(page.url()).origin;
    await page.goto(`${origin}/ui/#view=chat&agent=slow`);
    await page.locator('.chat-form textarea').fill('count');
    await page.locator('.chat-form button[type=submit]').click();
    await page.locator('.bubble.assistant', { hasText: 'two' }).waitFor(WAIT);
    const first = await page.locator('.session-label code').textContent();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.chat-log .hint').waitFor(WAIT);
    // The first run ends in the server, in its session; none of it lands in the new one.
    const ended = async () => {
      const view = (await (await fetch(`${origin}/sessions/${first}`)).json()) as {
        events: { type: string }[];
      };
      return view.events.at(-1)?.type;
    };
    await expect.poll(ended, WAIT).toBe('run_end');
    expect(await page.locator('.chat-log .bubble, .chat-log .line').count()).toBe(0);
    expect(await page.locator('.session-label').textContent()).toBe('no session yet');
    await page.locator('.chat-form textarea').fill('again');
    await page.locator('.chat-form button[type=submit]').click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    expect(await page.locator('.bubble.assistant .text').allTextContents()).toEqual([
      'one two three four five six',
    ]);
    expect(await page.locator('.session-label code').textContent()).not.toBe(first);
    await page.close();
  });

  it('follows a long answer as it is written, unless the reader scrolled up', async () => {
    const lines = Array.from({ length: 80 }, (_, i) => `line ${i} of a long answer`).join('\\n');
    const long = `kind: agent\nname: long\nmodel: long_script\n---\nkind: model\nname: long_script\nprovider: offline\nmodel: script\nscript:\n  - fallback: true\n    text: "${lines}"\n    delay_ms: 5\n`;
    const { page } = await openPage({ 'agentctl.yaml': PROJECT, 'agents/long.yaml': long });
    await page.goto(`${new URL(page.url()).origin}/ui/#view=chat&agent=long`);
    await page.locator('.chat-form textarea').fill('go');
    await page.locator('.chat-form button[type=submit]').click();
    // Mid-answer, the last words written are in view.
    await page.waitForFunction(
      () => {
        const log = document.querySelector<HTMLElement>('.chat-view .chat-log')!;
        const text = log.querySelector('.bubble.assistant .text')?.textContent ?? '';
        return (
          text.includes('line 40') &&
          !log.querySelector('.run-end') &&
          log.scrollHeight > log.clientHeight &&
          log.scrollTop + log.clientHeight >= log.scrollHeight - 2
        );
      },
      null,
      { ...WAIT, polling: 'raf' },
    );
    // Scrolled up to read, the reader stays where they are while the answer goes on.
    await page.locator('.chat-log').evaluate((log) => {
      log.scrollTop = 0;
    });
    const later = await page.waitForFunction(
      () => {
        const log = document.querySelector<HTMLElement>('.chat-view .chat-log')!;
        const text = log.querySelector('.bubble.assistant .text')?.textContent ?? '';
        return text.includes('line 50') && { top: log.scrollTop, ended: !!log.querySelector('.run-end') };
      },
      null,
      { ...WAIT, polling: 'raf' },
    );
    expect(await later.jsonValue()).toEqual({ top: 0, ended: false });
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    await page.close();
  });

  it('shows a chat whose run was cut off by a crash as agentctl kept it, once agentctl is back, and goes on', async () => {
    const root = await tempProject(
      { 'agentctl.yaml': PROJECT, 'agents/slow.yaml': SLOW },
      'agentctl-ui-cut-',
    );
    const port = String(await freePort());
    const start = async () => {
      const dev = await startLongRunning(
        root,
        ['dev', '--ui', '--port', port],
        { AGENTCTL_UI_DIR: undefined },
        /ui: (http:\/\/\S+)\n/,
      );
      running.push(dev);
      return dev;
    };
    const dev = await start();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${new URL(dev.match[1]).origin}/ui/#view=chat&agent=slow`);
    await page.locator('.chat-form textarea').fill('count');
    await page.locator('.chat-form button[type=submit]').click();
    await page.locator('.bubble.assistant', { hasText: 'two' }).waitFor(WAIT);
    const session = await page.locator('.session-label code').textContent();
    // Killed mid-answer, as a crash would.
    await dev.stop('SIGKILL');
    await page
      .locator('.line.error', { hasText: 'Lost the connection to agentctl during the run' })
      .waitFor(WAIT);
    // A message while it is down was never sent: the chat says so and keeps it.
    await page.locator('.chat-form textarea').fill('anyone there?');
    await page.locator('.chat-form button[type=submit]').click();
    await page.locator('.line.error', { hasText: 'Failed: agentctl does not answer' }).waitFor(WAIT);
    expect(await page.locator('.chat-form textarea').inputValue()).toBe('anyone there?');
    await start();
    await page
      .locator('.line.error', { hasText: 'this is the session as agentctl kept it, its last run cut short' })
      .waitFor(WAIT);
    expect(await page.locator('.session-label code').textContent()).toBe(session);
    // As agentctl kept it: the message that was never sent is not in it.
    expect(await page.locator('.bubble.user').allTextContents()).toEqual(['count']);
    await page.locator('.chat-form textarea').fill('again');
    await page.locator('.chat-form button[type=submit]').click();
    await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
    expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
      'one two three four five six',
    );
    await page.close();
  });

  it('follows agentctl when it is restarted: the project as it is now, or how to sign in again', async () => {
    const root = await tempProject(
      { 'agentctl.yaml': PROJECT, 'agents/plain.yaml': PLAIN },
      'agentctl-ui-restart-',
    );
    const port = String(await freePort());
    const start = async (token: string) => {
      const dev = await startLongRunning(
        root,
        ['dev', '--ui', '--port', port],
        { AGENTCTL_UI_DIR: undefined, AGENTCTL_SERVE_TOKEN: token },
        /ui: (http:\/\/\S+)\n/,
      );
      running.push(dev);
      return dev;
    };
    let dev = await start('first-token');
    // Two tabs of one browser: one follows the server's events and tells the other.
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const pages = [await context.newPage(), await context.newPage()];
    for (const page of pages) {
      await page.goto(dev.match[1]);
      await page.locator('[data-agent="plain"]').waitFor(WAIT);
      await page.locator('.status-badge.ok', { hasText: 'generation 1' }).waitFor(WAIT);
    }

    // Stopped, the project edited meanwhile, started again: its first generation is another project.
    expect(await dev.stop('SIGINT')).toBe(0);
    await writeFile(join(root, 'agents/other.yaml'), PLAIN.replace('name: plain', 'name: other'));
    dev = await start('first-token');
    for (const page of pages) await page.locator('[data-agent="other"]').waitFor(WAIT);

    // Started with another token, the server refuses the page's cookie: the page says how to get in.
    expect(await dev.stop('SIGINT')).toBe(0);
    dev = await start('second-token');
    for (const page of pages) {
      await page.locator('.sign-in').waitFor(WAIT);
      expect(await page.locator('.sign-in').textContent()).toContain('/ui/?token=');
    }
    // Signed in again in the tab that did not follow the stream, it follows it now: a save shows.
    await pages[1].goto(dev.match[1]);
    await pages[1].locator('[data-agent="other"]').waitFor(WAIT);
    await writeFile(join(root, 'agents/third.yaml'), PLAIN.replace('name: plain', 'name: third'));
    await pages[1].locator('[data-agent="third"]').waitFor(WAIT);
    await context.close();
  });
});
