import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from './cli-error.js';

const PACKAGE = '@agentctl/ui';

/**
 * The folder of the dev UI's built page: `AGENTCTL_UI_DIR` when set (a page being worked on), else
 * the `dist/` of the installed @agentctl/ui, found the way Node finds the package, so the build,
 * the bundle and an installed CLI all find it. A clear error when it is missing or not built.
 */
export function pageDir(
  env: Record<string, string | undefined>,
  /** Where the lookup starts, as Node resolves from a module: this one's own place by default. */
  from: string = import.meta.url,
): string {
  const chosen = env.AGENTCTL_UI_DIR;
  if (chosen) {
    if (!existsSync(join(chosen, 'index.html')))
      throw new CliError(`AGENTCTL_UI_DIR=${chosen} has no index.html`, EXIT.usage);
    return chosen;
  }
  // By the package's folder rather than require.resolve: the page is files, not a module entry.
  // Only the node_modules folders above the CLI, where a package manager puts its dependencies:
  // not NODE_PATH nor the global folders, which would serve whatever page happens to be there.
  const start = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  const bases = (createRequire(from).resolve.paths(PACKAGE) ?? []).filter((base) => {
    const above = dirname(base);
    return start === above || start.startsWith(`${above}${sep}`) || above === sep;
  });
  const found = bases.map((base) => join(base, PACKAGE)).find((dir) => existsSync(join(dir, 'package.json')));
  if (!found)
    throw new CliError(
      `the dev UI is not installed: ${PACKAGE} was not found beside @agentctl/cli`,
      EXIT.internal,
    );
  const dist = join(found, 'dist');
  if (!existsSync(join(dist, 'index.html')))
    throw new CliError(
      `the dev UI is not built: ${dist} has no index.html (run \`pnpm build\`)`,
      EXIT.internal,
    );
  return dist;
}
