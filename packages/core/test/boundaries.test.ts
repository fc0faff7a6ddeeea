import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FORBIDDEN = ['openai', '@anthropic-ai/sdk', 'yaml', 'chokidar', 'commander', 'lowdb'];

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? sources(join(dir, e.name))
        : Promise.resolve(e.name.endsWith('.ts') ? [join(dir, e.name)] : []),
    ),
  );
  return nested.flat();
}

describe('@agentctl/core boundaries', () => {
  it('imports no vendor SDK, YAML parser, watcher, CLI framework or database', async () => {
    const files = await sources(new URL('../src', import.meta.url).pathname);
    expect(files.length).toBeGreaterThan(10);
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const specifier = match[1];
        if (FORBIDDEN.some((name) => specifier === name || specifier.startsWith(`${name}/`)))
          offenders.push(`${file}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('declares no forbidden dependency', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies ?? {}).filter((d) => FORBIDDEN.includes(d))).toEqual([]);
  });
});
