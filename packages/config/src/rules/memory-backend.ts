import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { MemorySpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries } from './rule.js';

/**
 * A memory's `url` fits its backend: a backend that talks to a server (capability `needsNetwork`)
 * needs one, the others take none, and a literal URL must parse. An unknown backend is
 * unresolved-reference's; whether the server answers is left to `validate --connect` and the run.
 */
export function memoryBackend(ctx: RuleContext): Diagnostic[] {
  const registry = ctx.registry;
  if (!registry) return [];
  const out: Diagnostic[] = [];
  for (const entry of validEntries<MemorySpec>(ctx, 'memory')) {
    const { backend = 'file', url } = entry.spec;
    const at = (path: string[]) => entry.locate(path);
    if (backend.includes('${')) continue;
    const descriptor = registry.describe('memory', backend);
    if (!descriptor) continue;
    const server = descriptor.capabilities?.needsNetwork === true;
    if (server && url === undefined) {
      out.push(
        diagnostic(
          entry.file,
          at(['backend']),
          'memory-backend',
          `backend ${backend} needs \`url\`, the server's connection URL (e.g. url: \${DATABASE_URL})`,
        ),
      );
    } else if (!server && url !== undefined) {
      out.push(
        diagnostic(
          entry.file,
          at(['url']),
          'memory-backend',
          `backend ${backend} takes no \`url\` (it is not a server)`,
        ),
      );
    } else if (url !== undefined && !url.includes('${') && !URL.canParse(url)) {
      out.push(
        diagnostic(
          entry.file,
          at(['url']),
          'memory-backend',
          `url \`${excerpt(url)}\` is not a URL (expected e.g. postgres://USER:PASSWORD@HOST:5432/DATABASE)`,
        ),
      );
    }
  }
  return out;
}
