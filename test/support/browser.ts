import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { REPO } from './cli.js';

/** Debian's Chromium (the `chromium` package): the only browser the tests drive; none is downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether {@link CHROMIUM} is installed; browser tests skip (loudly) without it. */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Where browser tests keep their screenshots (gitignored; CI may upload it). */
export const ARTIFACTS = join(REPO, 'test/artifacts/ui');

/** Says, once and loudly, that browser tests were skipped and how to run them. */
export function warnNoChromium(): void {
  if (HAS_CHROMIUM) return;
  console.warn(
    `\n*** BROWSER TESTS SKIPPED: ${CHROMIUM} is missing. Install Debian's chromium (apt-get install chromium) to run them; CI installs it (.ci/services). ***\n`,
  );
}

/** Starts headless Chromium as CI runs it: no sandbox (root in a container), no GPU, no /dev/shm. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}

/**
 * Saves a screenshot of `page` as ARTIFACTS/NAME.png and, with `UPDATE_DOCS_SCREENSHOTS=1`, copies
 * it to docs/images/ (the screenshots docs/dev-ui.md shows are the ones the tests took).
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  if (process.env.UPDATE_DOCS_SCREENSHOTS === '1') {
    await mkdir(join(REPO, 'docs/images'), { recursive: true });
    await copyFile(file, join(REPO, 'docs/images', `dev-ui-${name}.png`));
  }
  return file;
}
