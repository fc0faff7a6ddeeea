import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSessionStore } from '../packages/store-file/src/index.js';
import { HAS_CHROMIUM, launchChromium, warnNoChromium } from './support/browser.js';
import { removeTempDirs, tempProject } from './support/cli.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';

// The dev UI's sessions list with more sessions than a page: the BUILT `agentctl dev --ui`, the
// built page, in Chromium.
const WAIT = { timeout: 20_000 };
const PROJECT = 'kind: project\nname: paged\n';
const AGENTS = `kind: agent
name: echo
model: offline/echo
instruction: hi
---
kind: agent
name: boss
model: offline/auto
instruction: hi
tools: [{ agent: echo }]
`;
// One page of the list is 100 sessions.
const EXTRA = 105;

let browser: Browser;
let dev: LongRunning;
let origin: string;
let boss: string;
let root: string;

warnNoChromium();

async function run(agent: string, input: string): Promise<string> {
  const response = await fetch(`${origin}/agents/${agent}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input, stream: false }),
  });
  const result = (await response.json()) as { status: string; sessionId: string };
  expect(result.status).toBe('complete');
  return result.sessionId;
}

describe.skipIf(!HAS_CHROMIUM)('the dev UI sessions list', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    root = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/team.yaml': AGENTS }, 'agentctl-ui-paged-');
    dev = await startLongRunning(
      root,
      ['dev', '--ui', '--port', '0'],
      { AGENTCTL_UI_DIR: undefined },
      /ui: (http:\/\/\S+)\n/,
    );
    origin = new URL(dev.match[1]).origin;
    // The oldest: a session whose agent tool has a session of its own, both beyond the first page.
    boss = await run('boss', 'ask the helper');
    for (let i = 0; i < EXTRA; i += 15)
      await Promise.all(
        Array.from({ length: Math.min(15, EXTRA - i) }, (_, j) => run('echo', `message ${i + j}`)),
      );
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await dev?.stop('SIGKILL');
    await removeTempDirs();
  });

  it('draws one page of sessions, and the next one when asked', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/ui/#view=sessions`);
      const items = page.locator('.session-list .session-item');
      const more = page.getByRole('button', { name: 'Show more' });
      await more.waitFor(WAIT);
      expect(await items.count()).toBe(100);
      await more.click();
      await expect.poll(() => items.count(), WAIT).toBe(EXTRA + 2);
      expect(await more.count()).toBe(0);
      // Newest first, each once.
      const ids = await items.evaluateAll((links) => links.map((l) => l.getAttribute('data-session')));
      expect(new Set(ids).size).toBe(EXTRA + 2);
      expect(ids.slice(-2)).toContain(boss);
      // In the order of GET /sessions (by creation), each showing when it started, its last write in the title.
      const listed = (await (await fetch(`${origin}/sessions`)).json()) as {
        sessions: Array<{ id: string }>;
      };
      expect(ids).toEqual(listed.sessions.map((s) => s.id));
      expect(await items.first().locator('.muted').first().getAttribute('title')).toMatch(
        /^started \S.*, last written \S/,
      );
      // Picking one far down the list keeps the reader's place: the list is not cut back to a page.
      await page.locator(`[data-session="${boss}"]`).click();
      await page.locator('.timeline .invocation').waitFor(WAIT);
      expect(await items.count()).toBe(EXTRA + 2);
    } finally {
      await page.close();
    }
  });

  it("links an agent tool's call to its session, wherever that session is in the list", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/ui/#view=sessions&session=${boss}`);
      await page.locator('.entry-tool').first().waitFor(WAIT);
      // Beyond the first page of the list, its child is found all the same.
      expect(await page.locator('.session-list .session-item').count()).toBe(100);
      await page.locator('.entry-tool summary').first().click();
      const link = page.getByRole('link', { name: 'the agent tool’s session →' });
      await link.click();
      await page.locator('.timeline header a', { hasText: '← the calling session' }).waitFor(WAIT);
    } finally {
      await page.close();
    }
  });

  it("keeps the reader's place past a thousand sessions shown (more than one answer holds)", async () => {
    // A thousand more, written into the project's sessions folder as another process would.
    const store = new FileSessionStore({ path: join(root, '.agentctl/sessions'), durable: false });
    for (let i = 0; i < 1000; i++) await store.create({ id: `bulk-${i}`, agent: 'echo' });
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/ui/#view=sessions`);
      const items = page.locator('.session-list .session-item');
      const more = page.getByRole('button', { name: 'Show more' });
      for (let shown = 100; shown < 1100; shown += 100) {
        await more.waitFor(WAIT);
        await more.click();
        await expect.poll(() => items.count(), WAIT).toBe(shown + 100);
      }
      // Far down the list, beyond the first 1,000: picking it keeps all that was shown.
      const far = await items.nth(1050).getAttribute('data-session');
      await page.locator(`[data-session="${far}"]`).click();
      await page.locator('.timeline').waitFor(WAIT);
      await expect
        .poll(() => page.locator('.session-item.current').getAttribute('data-session'), WAIT)
        .toBe(far);
      expect(await items.count()).toBeGreaterThanOrEqual(1100);
    } finally {
      await page.close();
    }
  });
});
