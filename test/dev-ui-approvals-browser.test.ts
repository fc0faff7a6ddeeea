import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, screenshot, warnNoChromium } from './support/browser.js';
import { isSessionPaused, removeTempDirs, tempProject } from './support/cli.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';

// Approvals in the dev UI as a person with two tabs meets them, and calls whose text was written to
// mislead whoever approves them. The BUILT `agentctl dev --ui` in Debian's Chromium.
const WAIT = { timeout: 30_000 };
const PROJECT = 'kind: project\nname: approvals\n';
// A command tool (which asks before it runs) that leaves a file behind when it runs.
const TOUCH = `kind: tool
name: touch
description: Creates an empty file in the project folder
parameters: { type: object, properties: { path: { type: string } }, required: [path] }
command: { argv: [touch, "{{ args.path }}"], cwd: .. }
`;
// The model gives its second call the id of its first, as offline models (and some real ones) do.
const DEPLOYER = `kind: agent
name: deployer
model: deployer_script
tools: [touch]
---
kind: model
name: deployer_script
provider: offline
model: script
script:
  - tool_calls: [{ id: c1, name: touch, arguments: { path: harmless.txt } }]
  - text: first done
  - tool_calls: [{ id: c1, name: touch, arguments: { path: dangerous.txt } }]
  - text: second done
`;
// Markup in the call id; in the path a terminal escape, and a right-to-left override that would
// show the file notes<RLO>txt.exe as "notesexe.txt"; the answer mixes markup and colour codes.
const TROJAN = `kind: agent
name: trojan
model: trojan_script
tools: [touch]
---
kind: model
name: trojan_script
provider: offline
model: script
script:
  - tool_calls: [{ id: "x<img src=x onerror=window.__pwned=1>", name: touch, arguments: { path: "\\u001b[2Jnotes\\u202Etxt.exe" } }]
  - text: "\\u001b[31mred\\u001b[0m <script>window.__pwned=2</script>"
`;

// offline/auto calls every tool once per message, each time under the same id.
const AUTO = `kind: agent
name: auto_toucher
model: offline/auto
tools: [touch]
`;

let project: string;
let dev: LongRunning;
let origin: string;
let browser: Browser;

warnNoChromium();

const exists = (file: string) =>
  access(join(project, file)).then(
    () => true,
    () => false,
  );

async function chat(page: Page, text: string): Promise<void> {
  await page.locator('.chat-form button[type=submit]:not([disabled])').waitFor(WAIT);
  await page.locator('.chat-form textarea').fill(text);
  await page.locator('.chat-form button[type=submit]').click();
}

describe.skipIf(!HAS_CHROMIUM)('approvals in the dev UI', () => {
  beforeAll(async () => {
    project = await tempProject(
      {
        'agentctl.yaml': PROJECT,
        'agents/touch.yaml': TOUCH,
        'agents/deployer.yaml': DEPLOYER,
        'agents/trojan.yaml': TROJAN,
        'agents/auto.yaml': AUTO,
      },
      'agentctl-ui-approvals-',
    );
    dev = await startLongRunning(
      project,
      ['dev', '--ui', '--port', '0'],
      { AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
    );
    origin = new URL(dev.match[1]).origin;
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop('SIGKILL');
    await removeTempDirs();
  });

  it('never approves another call than the one a stale tab shows: it says the call changed and shows the one waiting now', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const first = await context.newPage();
      await first.goto(`${origin}/ui/#view=chat&agent=deployer`);
      await chat(first, 'deploy the harmless one');
      await first.locator('.decision', { hasText: 'harmless.txt' }).waitFor(WAIT);
      const session = await first.locator('.session-label code').textContent();
      expect(session).toBeTruthy();

      // A second tab opens the same paused session: it shows the same call.
      const second = await context.newPage();
      await second.goto(`${origin}/ui/#view=chat&agent=deployer&session=${session}`);
      const stale = second.locator('.decision', { hasText: 'harmless.txt' });
      await stale.waitFor(WAIT);

      // The first tab approves, and the session goes on to pause again on a call with the same id.
      await first.locator('.decision').getByRole('button', { name: 'Approve' }).click();
      await first.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      expect(await exists('harmless.txt')).toBe(true);
      await chat(first, 'now the other one');
      await first.locator('.decision', { hasText: 'dangerous.txt' }).waitFor(WAIT);
      // Its own card for the new call shows the new call's arguments, not the first call's card.
      await expect
        .poll(() => first.locator('.tool-call .args').allTextContents(), WAIT)
        .toEqual([expect.stringContaining('harmless.txt'), expect.stringContaining('dangerous.txt')]);
      expect(await first.locator('.tool-call').last().locator('.tool-status').textContent()).toBe(
        'waiting for approval',
      );

      // The second tab still shows the first call: approving it must not run the second.
      await stale.getByRole('button', { name: 'Approve' }).click();
      const refused = second.locator('.line.error', { hasText: 'Not sent:' });
      await refused.waitFor(WAIT);
      expect(await refused.textContent()).toContain(
        'the call waiting as c1 is touch({"path":"dangerous.txt"}), not the call that was decided; nothing was run',
      );
      expect(await exists('dangerous.txt')).toBe(false);
      expect(await isSessionPaused(project, session!)).toBe(true);
      // It now shows the session as it is, with the call that waits now, and decides that one.
      const current = second.locator('.decision', { hasText: 'dangerous.txt' });
      await current.waitFor(WAIT);
      await screenshot(second, 'approval-changed');
      await current.getByRole('button', { name: 'Deny' }).click();
      await second.locator('.bubble.assistant', { hasText: 'second done' }).waitFor(WAIT);
      await expect.poll(() => second.locator('.run-end[data-status="complete"]').count(), WAIT).toBe(2);
      expect(await exists('dangerous.txt')).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('two tabs deciding one call: the second is told it was decided, and shows the session as it is', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const first = await context.newPage();
      await first.goto(`${origin}/ui/#view=chat&agent=auto_toucher`);
      await chat(first, 'tidy');
      await first.locator('.decision').waitFor(WAIT);
      const session = await first.locator('.session-label code').textContent();
      const second = await context.newPage();
      await second.goto(`${origin}/ui/#view=chat&agent=auto_toucher&session=${session}`);
      await second.locator('.decision').waitFor(WAIT);
      const files = await readdir(project);

      await first.locator('.decision').getByRole('button', { name: 'Deny' }).click();
      await first.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      await second.locator('.decision').getByRole('button', { name: 'Approve' }).click();
      const refused = second.locator('.line.error', { hasText: 'Not sent:' });
      await refused.waitFor(WAIT);
      expect(await refused.textContent()).toContain(`session ${session} is not waiting for a decision`);
      // Shown as it is: denied, answered, nothing left to decide; the approval ran nothing.
      await second.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      expect(await second.locator('.decision').count()).toBe(0);
      expect(await second.locator('.tool-call.failed .result').textContent()).toMatch(/not run/i);
      expect(await readdir(project)).toEqual(files);
    } finally {
      await context.close();
    }
  });

  it('shows a session paused meanwhile by another tab when a message is refused, with the call to decide, and keeps the message typed', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const first = await context.newPage();
      await first.goto(`${origin}/ui/#view=chat&agent=auto_toucher`);
      await chat(first, 'one');
      await first.locator('.decision').getByRole('button', { name: 'Deny' }).click();
      await first.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      const session = await first.locator('.session-label code').textContent();
      const second = await context.newPage();
      await second.goto(`${origin}/ui/#view=chat&agent=auto_toucher&session=${session}`);
      await second.locator('.run-end[data-status="complete"]').waitFor(WAIT);

      await chat(first, 'two');
      // Its first message paused too, before it was denied.
      await expect.poll(() => first.locator('.run-end[data-status="paused"]').count(), WAIT).toBe(2);
      await chat(second, 'three');
      const refused = second.locator('.line.error', { hasText: 'Not sent:' });
      await refused.waitFor(WAIT);
      expect(await refused.textContent()).toContain(`session ${session} is paused waiting for a decision`);
      await second.locator('.bubble.user', { hasText: 'two' }).waitFor(WAIT);
      expect(await second.locator('.chat-form textarea').inputValue()).toBe('three');
      await second.locator('.decision').getByRole('button', { name: 'Deny' }).click();
      await expect.poll(() => second.locator('.run-end[data-status="complete"]').count(), WAIT).toBe(2);
      // Each message's call has its own card, though the model gave them one id.
      expect(await second.locator('.tool-call.failed').count()).toBe(2);
    } finally {
      await context.close();
    }
  });

  it('shows what a call and an answer hide: markup as text, bidi overrides and terminal escapes written out', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    try {
      await page.goto(`${origin}/ui/#view=chat&agent=trojan`);
      await chat(page, 'tidy up');
      const decision = page.locator('.decision');
      await decision.waitFor(WAIT);
      expect(await decision.getAttribute('data-call')).toBe('x<img src=x onerror=window.__pwned=1>');
      const args = await decision.locator('.args').textContent();
      expect(args).toContain('"path": "\\u001b[2Jnotes\\u202etxt.exe"');
      await decision.getByRole('button', { name: 'Approve' }).click();
      await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
        '\\u001b[31mred\\u001b[0m <script>window.__pwned=2</script>',
      );
      // Nowhere on the page (the tool card, the timeline) is the override or the escape itself.
      const session = await page.locator('.session-label code').textContent();
      await page.goto(`${origin}/ui/#view=sessions&session=${session}`);
      await page.locator('.entry-tool').waitFor(WAIT);
      for (const summary of await page.locator('.entry summary').all()) await summary.click();
      expect(await page.locator('.entry-tool').textContent()).toContain('notes\\u202etxt.exe');
      const text = await page.evaluate(() => document.body.textContent ?? '');
      expect(text.includes('\u001b') || text.includes('\u202e')).toBe(false);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    } finally {
      await page.close();
    }
  });
});
