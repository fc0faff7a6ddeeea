import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';

const require = createRequire(join(REPO, 'packages/config/package.json'));
const { parse } = require('yaml') as typeof import('yaml');

// Every ```yaml block of README.md and docs/*.md, copied into files exactly as written, passes the
// real `agentctl validate` (the schema check alone is packages/config/test/examples.test.ts).
// A comment on the line before a block says what else it needs:
//   <!-- check: fragment -->               a part of a document: not validated on its own
//   <!-- check: with agents/triage.yaml --> copies these repository files into its project
//   <!-- check: with #conversations -->     adds the page's block that defines this name
//   <!-- check: mkdir agents/workspace -->  makes these folders in its project
// Blocks of GitHub Actions workflows (`jobs:`) and compose files (`services:`) are not ours.
// Blocks with the same needs share a project when their names allow (one validate run each), so a
// block may use what another one defines; a block with a `kind: project` has a project to itself.
// The `kind: test` blocks then run with the real `agentctl test`: what they expect must happen.

interface Block {
  /** `docs/format.md:168`: the page and the line of its opening fence. */
  id: string;
  page: string;
  fence: number;
  text: string;
  fragment: boolean;
  with: string[];
  refs: string[];
  mkdir: string[];
  /** `kind/name` of every document but the project. */
  names: string[];
  /** The document's lines that are `kind: project`, if any: [first, end) in the block's lines. */
  project?: [number, number];
}

/** The documents of a block as line ranges; a `---` line opens the document after it. */
function chunks(lines: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  lines.forEach((line, i) => {
    if (/^---\s*(#.*)?$/.test(line)) {
      out.push([start, i]);
      start = i;
    }
  });
  out.push([start, lines.length]);
  return out;
}

async function blocks(): Promise<Block[]> {
  const pages = [
    'README.md',
    ...(await readdir(join(REPO, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ];
  const found: Block[] = [];
  for (const page of pages) {
    const md = await readFile(join(REPO, page), 'utf8');
    for (const m of md.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      const before = md.slice(0, m.index);
      const fence = before.split('\n').length;
      const marker = /<!-- check: (.*?) -->\n$/.exec(before)?.[1] ?? '';
      const words = (verb: string) =>
        marker
          .split(';')
          .map((part) => part.trim().split(/\s+/))
          .filter(([v]) => v === verb)
          .flatMap(([, ...rest]) => rest);
      const text = m[1];
      const lines = text.replace(/\n$/, '').split('\n');
      const block: Block = {
        id: `${page}:${fence}`,
        page,
        fence,
        text,
        fragment: marker.split(';').some((p) => p.trim() === 'fragment'),
        with: words('with').filter((w) => !w.startsWith('#')),
        refs: words('with')
          .filter((w) => w.startsWith('#'))
          .map((w) => w.slice(1)),
        mkdir: words('mkdir'),
        names: [],
      };
      let foreign = false;
      for (const [from, to] of chunks(lines)) {
        const value = parse(lines.slice(from, to).join('\n')) as Record<string, unknown> | null;
        if (!value || typeof value !== 'object') continue;
        if (!('kind' in value) && ('jobs' in value || 'services' in value)) foreign = true;
        else if (value.kind === 'project') block.project = [from, to];
        else block.names.push(`${value.kind}/${value.name}`);
      }
      if (!foreign) found.push(block);
    }
  }
  return found;
}

/** Where a file of a project came from: a block, with the block's line 1 at the file's line 1. */
type Origins = Map<string, Block>;

/** Writes a block into a project: the project document into agentctl.yaml, the rest under agents/ (tests/ for a test), line for line. */
async function writeBlock(dir: string, block: Block, origins: Origins): Promise<void> {
  const lines = block.text.replace(/\n$/, '').split('\n');
  const blank = (from: number, to: number, all: string[]) =>
    all.map((line, i) => (i >= from && i < to ? '#' : line));
  // A block with a test goes where `agentctl test` finds it.
  const folder = block.names.some((n) => n.startsWith('test/')) ? 'tests' : 'agents';
  const file = `${folder}/${block.page.replace(/\W/g, '_')}_${block.fence}.yaml`;
  if (block.project) {
    const [from, to] = block.project;
    await writeFile(
      join(dir, 'agentctl.yaml'),
      `${blank(0, from > 0 ? from + 1 : 0, lines)
        .slice(0, to)
        .join('\n')}\n`,
    );
    origins.set('agentctl.yaml', block);
    if (from > 0 || to < lines.length) lines.splice(0, lines.length, ...blank(from, to, lines));
    else return;
  }
  await mkdir(join(dir, folder), { recursive: true });
  await writeFile(join(dir, file), `${lines.join('\n')}\n`);
  origins.set(file, block);
}

interface Project {
  dir: string;
  origins: Origins;
  /** Whether a block of it is a `kind: test`, which `agentctl test` then runs. */
  tests: boolean;
}

/**
 * Projects holding every block, as few as names allow: blocks that need the same files share a
 * project, and a block with a project document has one of its own.
 */
async function projects(all: Block[]): Promise<Project[]> {
  const groups: Array<{ key: string; blocks: Block[]; names: Set<string> }> = [];
  for (const block of all.filter((b) => !b.fragment)) {
    const key = block.project ? block.id : JSON.stringify([block.with, block.refs, block.mkdir]);
    const group = groups.find((g) => g.key === key && block.names.every((n) => !g.names.has(n)));
    if (group) {
      group.blocks.push(block);
      for (const n of block.names) group.names.add(n);
    } else groups.push({ key, blocks: [block], names: new Set(block.names) });
  }
  const made: Project[] = [];
  for (const { blocks: members } of groups) {
    const dir = await tempDir('agentctl-docs-');
    const origins: Origins = new Map();
    for (const block of members) await writeBlock(dir, block, origins);
    const [first] = members;
    // Files of the example project come with its agentctl.yaml, which keeps scripts and cassettes out.
    const paths = first.project || !first.with.length ? first.with : ['agentctl.yaml', ...first.with];
    for (const path of paths) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await cp(join(REPO, path), join(dir, path), { recursive: true });
    }
    for (const name of first.refs) {
      const source = all.find(
        (b) => b.page === first.page && !members.includes(b) && b.names.some((n) => n.endsWith(`/${name}`)),
      );
      expect(source, `${first.id}: no block of ${first.page} defines ${name}`).toBeDefined();
      await writeBlock(dir, { ...source!, project: undefined }, origins);
    }
    for (const path of first.mkdir) await mkdir(join(dir, path), { recursive: true });
    made.push({ dir, origins, tests: members.some((b) => b.names.some((n) => n.startsWith('test/'))) });
  }
  return made;
}

interface Diagnostic {
  file: string;
  line: number;
  col: number;
  severity: string;
  rule: string;
  message: string;
}

afterAll(removeTempDirs);

// The environment the docs assume: no model key (offline), and the database deploy.md exports.
const DOCS_ENV = {
  OPENAI_API_KEY: undefined,
  DATABASE_URL: 'postgres://agentctl:secret@db.internal:5432/agentctl',
};

describe('the YAML examples of the docs', () => {
  it('every block validates with the real `agentctl validate --strict`', async () => {
    const all = await blocks();
    expect(all.length).toBeGreaterThanOrEqual(25);
    const checked = all.filter((b) => !b.fragment);
    // A fragment is the exception: most examples are whole documents.
    expect(all.length - checked.length).toBeLessThanOrEqual(3);
    const made = await projects(all);
    const problems: string[] = [];
    const results = await Promise.all(
      made.map((p) => agentctl(['validate', '--strict', '--format', 'json'], { cwd: p.dir, env: DOCS_ENV })),
    );
    made.forEach(({ origins }, i) => {
      const { code, stdout, stderr } = results[i];
      let report: { diagnostics: Diagnostic[] };
      try {
        report = JSON.parse(stdout);
      } catch {
        problems.push(`validate exited ${code} without a report: ${stderr}`);
        return;
      }
      for (const d of report.diagnostics) {
        const block = origins.get(d.file);
        // The example project's files are checked on their own (packages/config/test/examples.test.ts).
        if (!block && d.severity === 'warning') continue;
        // A project document alone has no agent to find.
        if (
          block &&
          !block.names.length &&
          d.rule === 'project-file' &&
          d.message.startsWith('no YAML files match')
        )
          continue;
        const where = block
          ? `${block.page}:${block.fence + d.line}:${d.col}`
          : `${d.file}:${d.line}:${d.col}`;
        problems.push(`${where}: ${d.severity}: ${d.message} [${d.rule}]`);
      }
      if (report.diagnostics.length === 0) expect(code, stderr).toBe(0);
    });
    expect(problems).toEqual([]);
  });

  it('every `kind: test` block passes with the real `agentctl test`, offline', async () => {
    const made = (await projects(await blocks())).filter((p) => p.tests);
    expect(made.length).toBeGreaterThanOrEqual(2);
    const results = await Promise.all(
      made.map((p) => agentctl(['test', '--format', 'json'], { cwd: p.dir, env: DOCS_ENV })),
    );
    const failed: string[] = [];
    let passed = 0;
    made.forEach(({ origins }, i) => {
      const { code, stdout, stderr } = results[i];
      const report = JSON.parse(stdout || '{}') as {
        tests?: Array<{ name: string; file: string; line: number; status: string; failures: unknown[] }>;
      };
      if (!report.tests) failed.push(`agentctl test exited ${code} without a report: ${stderr}`);
      for (const t of report.tests ?? []) {
        const block = origins.get(t.file);
        const where = block ? `${block.page}:${block.fence + t.line}` : `${t.file}:${t.line}`;
        if (t.status === 'passed') passed++;
        else failed.push(`${where}: ${t.name} ${t.status}: ${JSON.stringify(t.failures)}`);
      }
    });
    expect(failed).toEqual([]);
    expect(passed).toBeGreaterThanOrEqual(4);
  });
});
