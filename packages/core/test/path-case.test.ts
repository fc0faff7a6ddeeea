import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalRuleMatcher, createApprovalPolicy, defineTool, foldsCase } from '../src/index.js';

let base = '';
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'agentctl-case-')));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// A file tool over `root` whose file system ignores case or not, as injected.
const fileTool = (root: string, caseInsensitive?: boolean) =>
  defineTool({
    name: 'read_file',
    description: 'r',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
    pathArguments: { names: ['path'], root, caseInsensitive },
    execute: () => 'ok',
  });

const call = (p: string) => ({ id: 'c', name: 'read_file', arguments: { path: p } });

describe('path rules on a file system that ignores case', () => {
  it('a deny rule matches every spelling of the path there, and only its own spelling elsewhere', () => {
    const deny = approvalRuleMatcher({ tool: '*', args: { path: 'secret/*' } });
    const denyRegex = approvalRuleMatcher({ tool: '*', args: { path: '/^secret\\//' } });
    const folding = fileTool(base, true);
    const exact = fileTool(base, false);
    for (const spelling of ['SECRET/a', 'Secret/a', './sEcReT/a', 'notes/../SECRET/a']) {
      expect(deny(call(spelling), folding)).toBe(true);
      expect(denyRegex(call(spelling), folding)).toBe(true);
      expect(deny(call(spelling), exact)).toBe(false);
    }
    expect(deny(call('secret/a'), exact)).toBe(true);
  });

  it('an allow rule covers every spelling there too, still never a ".." it does not spell out', () => {
    const allow = approvalRuleMatcher({ tool: '*', args: { path: 'notes/*' } }, 'allow', 'allow');
    expect(allow(call('NOTES/a.md'), fileTool(base, true))).toBe(true);
    expect(allow(call('NOTES/a.md'), fileTool(base, false))).toBe(false);
    expect(allow(call('NOTES/../../x'), fileTool(base, true))).toBe(false);
  });

  it('the policy refuses SECRET/a under deny secret/* where the disk ignores case', () => {
    const policy = createApprovalPolicy({ deny: [{ tool: '*', args: { path: 'secret/*' } }] });
    expect(policy(call('SECRET/a'), fileTool(base, true))).toBe('deny');
    expect(policy(call('SECRET/a'), fileTool(base, false))).toBe('allow');
  });

  it('foldsCase probes the real file system by an entry spelt with its case flipped', async () => {
    const root = path.join(base, 'probe');
    await mkdir(root);
    await writeFile(path.join(root, '123'), '');
    await writeFile(path.join(root, 'Readme.md'), '');
    const ignoresCase = existsSync(path.join(root, 'rEADME.MD'));
    // Unset, a tool's rules follow the probe.
    const deny = approvalRuleMatcher({ tool: '*', args: { path: 'secret/*' } });
    expect(foldsCase(root)).toBe(ignoresCase);
    // With no entry to probe, the folder's own name is flipped.
    const empty = path.join(base, 'Empty');
    await mkdir(empty);
    expect(foldsCase(empty)).toBe(existsSync(path.join(base, 'eMPTY')));
    // (On a disk that ignores case, Data and dATA cannot be two entries.)
    if (!ignoresCase) {
      // A name whose flipped spelling is the same file (a hard link stands in for a disk ignoring
      // case) is what the probe looks for; two different files are a disk that keeps case.
      const linked = path.join(base, 'linked');
      await mkdir(linked);
      await writeFile(path.join(linked, 'Data'), 'x');
      await link(path.join(linked, 'Data'), path.join(linked, 'dATA'));
      expect(foldsCase(linked)).toBe(true);
      const distinct = path.join(base, 'distinct');
      await mkdir(distinct);
      await writeFile(path.join(distinct, 'Data'), 'x');
      await writeFile(path.join(distinct, 'dATA'), 'y');
      expect(foldsCase(distinct)).toBe(false);
      expect(deny(call('SECRET/a'), fileTool(linked))).toBe(true);
    }
    expect(deny(call('SECRET/a'), fileTool(root))).toBe(ignoresCase);
  });
});
