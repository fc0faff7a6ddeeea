import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, warnNoChromium } from './support/browser.js';
import { removeTempDirs, tempProject } from './support/cli.js';
import { type FreezableProxy, startFreezableProxy } from './support/freezable-proxy.js';
import { type LongRunning, startLongRunning } from './support/long-running.js';

// The dev UI's run streams in Chromium: the BUILT `agentctl serve --watch --ui`, the built page.
const WAIT = { timeout: 20_000 };
const PROJECT = 'kind: project\nname: streams\n';
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
    text: one two three four five six seven eight nine ten eleven twelve
    delay_ms: 300
`;
// Quiet between its two words for longer than the page's patience would be without heartbeats.
const PAUSING = `kind: agent
name: pausing
model: pausing_script
---
kind: model
name: pausing_script
provider: offline
model: script
script:
  - fallback: true
    text: before after
    delay_ms: 1500
`;

// A long answer to fill the chat, then one that calls a tool after a slow sentence.
const LINES = Array.from({ length: 80 }, (_, i) => `line ${i} of a long answer`).join('\\n');
const TOOLS = `kind: agent
name: tools
model: tools_script
tools: [{ builtin: current_time }]
---
kind: model
name: tools_script
provider: offline
model: script
script:
  - match: time
    text: let me look at the clock
    delay_ms: 300
    tool_calls: [{ name: current_time }]
  - match: time
    text: done
  - fallback: true
    text: "${LINES}"
`;

const running: LongRunning[] = [];
const proxies: FreezableProxy[] = [];
let browser: Browser;

warnNoChromium();

// The project served with heartbeats 200 ms apart (the page gives up after three missed), reached
// through a proxy that can stop passing the server's bytes on, as a link that died silently does.
async function serveBehindProxy(): Promise<{ origin: string; direct: string; proxy: FreezableProxy }> {
  const root = await tempProject(
    {
      'agentctl.yaml': PROJECT,
      'agents/slow.yaml': SLOW,
      'agents/pausing.yaml': PAUSING,
      'agents/tools.yaml': TOOLS,
    },
    'agentctl-ui-streams-',
  );
  const serve = await startLongRunning(
    root,
    ['serve', '--watch', '--ui', '--port', '0', '--heartbeat', '200ms'],
    { AGENTCTL_UI_DIR: undefined },
    /ui: (http:\/\/\S+)\n/,
  );
  running.push(serve);
  const proxy = await startFreezableProxy(Number(new URL(serve.match[1]).port));
  proxies.push(proxy);
  return { origin: `http://127.0.0.1:${proxy.port}`, direct: new URL(serve.match[1]).origin, proxy };
}

describe.skipIf(!HAS_CHROMIUM)('the dev UI and its run streams', () => {
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
    await Promise.all(running.splice(0).map((serve) => serve.stop('SIGKILL')));
  });
  afterAll(async () => {
    await browser?.close();
    await removeTempDirs();
  });

  it('takes a run stream that went silent as lost, and shows the session as agentctl kept it', async () => {
    const { origin, direct, proxy } = await serveBehindProxy();
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/ui/#view=chat&agent=slow`);
      await page.locator('.chat-form textarea').fill('count');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.bubble.assistant', { hasText: 'two' }).waitFor(WAIT);
      // The link dies without a word: no reset, no close, nothing more comes.
      proxy.freeze();
      await page.locator('.line.error', { hasText: 'nothing came from agentctl for 600 ms' }).waitFor(WAIT);
      expect(await page.locator('.chat-view').getAttribute('class')).not.toContain('busy');
      // The run went on in agentctl meanwhile; once it has ended there, the link comes back.
      const session = await page.locator('.session-label code').textContent();
      await expect
        .poll(async () => {
          const view = (await (await fetch(`${direct}/sessions/${session}`)).json()) as {
            events: Array<{ type: string }>;
          };
          return view.events.at(-1)?.type;
        }, WAIT)
        .toBe('run_end');
      proxy.thaw();
      // Shown as agentctl had it when the page asked (the page asked at once, its answer held
      // with the rest), then checked again: the run has ended, and the page says so.
      // Not said to be cut short: agentctl did not stop, and the run went on there.
      await page
        .locator('.lost-session[data-state="settled"]', {
          hasText: 'this is the session as agentctl kept it, its last run ended since.',
        })
        .waitFor(WAIT);
      expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
        'one two three four five six seven eight nine ten eleven twelve',
      );
      expect(await page.locator('.bubble.user').allTextContents()).toEqual(['count']);
      expect(await page.locator('.session-label code').textContent()).toBe(session);
      await page.locator('.chat-form textarea').fill('again');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
        'one two three four five six seven eight nine ten eleven twelve',
      );
    } finally {
      await page.close();
    }
  });

  it('keeps checking a session whose stream went silent while its run goes on, and shows it end', async () => {
    const { origin, proxy } = await serveBehindProxy();
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/ui/#view=chat&agent=slow`);
      await page.locator('.chat-form textarea').fill('count');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.bubble.assistant', { hasText: 'two' }).waitFor(WAIT);
      proxy.freeze();
      await page.locator('.line.error', { hasText: 'nothing came from agentctl for 600 ms' }).waitFor(WAIT);
      // The link is back while the run still goes on: the page shows it unfinished, says when it
      // checks again, and checks until the run has ended.
      proxy.thaw();
      const waiting = page.locator('.lost-session[data-state="waiting"]', {
        hasText: 'its last run not ended when asked: it may still be going on in agentctl',
      });
      await waiting.waitFor(WAIT);
      expect(await waiting.locator('.lost-status').textContent()).toMatch(
        /^ Checked \d+ times?; checking again in \d/,
      );
      await page
        .locator('.lost-session[data-state="settled"]', { hasText: 'its last run ended since.' })
        .waitFor(WAIT);
      expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe(
        'one two three four five six seven eight nine ten eleven twelve',
      );
      expect(await page.locator('.run-end[data-status="complete"]').count()).toBe(1);
      expect(await page.locator('.lost-session').count()).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('keeps a quiet run whose heartbeats arrive', async () => {
    const { origin } = await serveBehindProxy();
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/ui/#view=chat&agent=pausing`);
      await page.locator('.chat-form textarea').fill('wait');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      expect(await page.locator('.bubble.assistant .text').last().textContent()).toBe('before after');
      expect(await page.locator('.line.error').count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('leaves a reader who scrolled up where they are while tool cards and status lines come', async () => {
    const { direct } = await serveBehindProxy();
    const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
    try {
      await page.goto(`${direct}/ui/#view=chat&agent=tools`);
      await page.locator('.chat-form textarea').fill('long');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.run-end[data-status="complete"]').waitFor(WAIT);
      const log = page.locator('.chat-log');
      expect(await log.evaluate((l) => l.scrollHeight > l.clientHeight)).toBe(true);
      await page.locator('.chat-form textarea').fill('what time is it');
      await page.locator('.chat-form button[type=submit]').click();
      // The message sent takes the reader down to it; they scroll up to read the long answer.
      await page.locator('.bubble.assistant', { hasText: 'let me' }).waitFor(WAIT);
      await log.evaluate((l) => {
        l.scrollTop = 0;
      });
      await page.locator('.run-end').nth(1).waitFor(WAIT);
      // A tool card, its result, the next answer and the run's end came: the reader is still there.
      expect(await page.locator('.tool-call').count()).toBe(1);
      expect(await log.evaluate((l) => l.scrollTop)).toBe(0);
      // Back at the bottom, the log follows again.
      await log.evaluate((l) => {
        l.scrollTop = l.scrollHeight;
      });
      await page.locator('.chat-form textarea').fill('long');
      await page.locator('.chat-form button[type=submit]').click();
      await page.locator('.run-end').nth(2).waitFor(WAIT);
      expect(await log.evaluate((l) => l.scrollTop + l.clientHeight >= l.scrollHeight - 2)).toBe(true);
    } finally {
      await page.close();
    }
  });
});
