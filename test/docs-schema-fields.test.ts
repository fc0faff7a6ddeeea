import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './support/cli.js';

// Every field of the format (schemas/*.json, the registered plugins' options included) is named in
// README.md or docs/*.md, so a user who meets it in the editor's completion can read what it does.
// The other way round, the YAML blocks of the docs pass the real `validate` (docs-yaml-examples).

/** Property names of a schema, with where each is declared. */
function properties(node: unknown, where: string, into: Map<string, Set<string>>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) properties(item, where, into);
    return;
  }
  const record = node as Record<string, unknown>;
  if (record.properties && typeof record.properties === 'object') {
    for (const [name, value] of Object.entries(record.properties)) {
      if (!into.has(name)) into.set(name, new Set());
      into.get(name)!.add(where);
      properties(value, `${where}.${name}`, into);
    }
  }
  for (const [key, value] of Object.entries(record)) if (key !== 'properties') properties(value, where, into);
}

const escapeRegExp = (text: string) => text.replace(/[$.*+?^()[\]{}|\\]/g, '\\$&');

describe('the fields of the schemas', () => {
  it('every field is named in the docs', async () => {
    const fields = new Map<string, Set<string>>();
    for (const file of await readdir(join(REPO, 'schemas')))
      properties(JSON.parse(await readFile(join(REPO, 'schemas', file), 'utf8')), file, fields);
    expect(fields.size).toBeGreaterThan(100);
    const pages = [
      'README.md',
      ...(await readdir(join(REPO, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
    ];
    const docs = (await Promise.all(pages.map((p) => readFile(join(REPO, p), 'utf8')))).join('\n');
    const missing: string[] = [];
    for (const [name, where] of fields) {
      const n = escapeRegExp(name);
      // `name`, `name: ...`, `a.name`, `{ name }`, or a YAML key: `name:` at a line's start or after `{`/`,`.
      const named = new RegExp(
        `\`${n}[\`:]|\\.${n}\`|[{,] ${n}[ }:,]|^\\s*(?:- )?${n}:|\`\\S*\\.${n}\``,
        'm',
      );
      if (!named.test(docs)) missing.push(`${name} (${[...where].join(', ')})`);
    }
    expect(missing).toEqual([]);
  });
});
