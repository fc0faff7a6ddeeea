/** Polls `check` every 50 ms until it holds; throws `what` after `ms` (generous: the machine is shared). */
export async function waitFor(check: () => boolean, what = 'condition', ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
