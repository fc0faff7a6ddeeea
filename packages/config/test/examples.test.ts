import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compileProject, formatDiagnostic, loadProject, loadSchema, SCHEMA_DIR } from '../src/index.js';

const repo = join(import.meta.dirname, '../../..');

function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

describe('examples', () => {
  it('the repository project validates with no diagnostics', async () => {
    const project = await loadProject({ cwd: repo, env: {} });
    expect(project.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect([...project.specs.agent.keys()].sort()).toEqual([
      'billing',
      'critic',
      'drafting',
      'gather',
      'greeter',
      'hello',
      'housekeeper',
      'librarian',
      'papers',
      'plan',
      'recorded',
      'research',
      'support',
      'tech',
      'toolsmith',
      'triage',
      'web',
      'write',
      'writer',
    ]);
  });

  it("the repository's tests validate with the project and cover every example root agent", async () => {
    const project = await loadProject({ cwd: repo, env: {}, tests: true });
    expect(project.diagnostics.map(formatDiagnostic)).toEqual([]);
    const tested = new Set([...project.specs.test.values()].map((t) => (t.spec as { agent: string }).agent));
    for (const agent of [
      'hello',
      'triage',
      'drafting',
      'research',
      'greeter',
      'support',
      'toolsmith',
      'housekeeper',
      'librarian',
      'recorded',
    ])
      expect(tested, agent).toContain(agent);
    // Without `tests: true` a run never reads them.
    const plain = await loadProject({ cwd: repo, env: {} });
    expect(plain.specs.test.size).toBe(0);
  });

  it('every example agent compiles and runs offline', async () => {
    const project = await loadProject({ cwd: repo, env: {} });
    // The MCP example needs @agentctl/mcp's toolset kind, which the CLI registers: it runs in
    // test/mcp-example.test.ts.
    const agents = [...project.specs.agent.keys()].filter((name) => name !== 'librarian');
    const { runtime, diagnostics } = await compileProject(project, { env: {}, agents });
    // With no key, the one real model replays its recorded cassette, and says so.
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /^agents\/recorded\.yaml:\d+:\d+: warning: model `openai-mini` has no API key \(OPENAI_API_KEY is not set\); replaying its cassette agents\/cassettes\/recorded\.yaml instead \[replay-fallback\]$/,
      ),
    ]);
    try {
      const recorded = await runtime!.agents
        .get('recorded')!
        .run('How many words are in: the quick brown fox jumps').result;
      expect(recorded.text).toBe('There are 5 words in that text.');
      expect(recorded.toolCalls.map((c) => c.name)).toEqual(['word_count']);
      const hello = await runtime!.agents.get('hello')!.run('hi there').result;
      expect(hello.text).toBe('hi there');
      const tools = await runtime!.agents.get('toolsmith')!.run('go').result;
      expect(tools.toolCalls.map((c) => [c.name, c.isError])).toEqual([
        ['word_count', false],
        ['shout', false],
      ]);
      const support = await runtime!.agents.get('support')!.run('I want a refund').result;
      expect(support.text).toBe('Refunds take 5 business days.');
      expect(support.usage.inputTokens).toBe(12);
      const greeter = await runtime!.agents.get('greeter')!.run('hello').result;
      expect(greeter.usage.estimatedCost).toBeGreaterThan(0);
    } finally {
      await runtime?.dispose();
    }
  });

  it('every ```yaml block in README.md and docs/*.md follows the schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const file of readdirSync(SCHEMA_DIR))
      ajv.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')));
    const validate = ajv.getSchema('agentctl.schema.json')!;
    const sources = [join(repo, 'README.md')];
    if (existsSync(join(repo, 'docs'))) {
      for (const f of readdirSync(join(repo, 'docs')))
        if (f.endsWith('.md')) sources.push(join(repo, 'docs', f));
    }
    let checked = 0;
    for (const source of sources.filter((s) => existsSync(s))) {
      for (const block of yamlBlocks(readFileSync(source, 'utf8'))) {
        for (const doc of parseAllDocuments(block)) {
          expect(
            doc.errors.map((e) => e.message),
            `${source}:\n${block}`,
          ).toEqual([]);
          const value = doc.toJS() as { kind?: unknown; jobs?: unknown } | null;
          // Every block is an agentctl document, but for GitHub Actions workflows (`jobs:`) and
          // compose files (`services:`).
          const foreign = value && typeof value === 'object' && ('jobs' in value || 'services' in value);
          if (foreign && !('kind' in value)) continue;
          checked++;
          expect(validate(value), `${source}: ${JSON.stringify(validate.errors)}\n${block}`).toBe(true);
        }
      }
    }
    // README and docs/format.md hold an example of every kind.
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('the entry schema dispatches on kind and loadSchema returns each kind', () => {
    expect((loadSchema() as { $id: string }).$id).toBe('agentctl.schema.json');
    expect((loadSchema('agent') as { title: string }).title).toBe('agentctl agent');
    expect(() => loadSchema('nope')).toThrow(/unknown schema/);
  });
});
