import { describe, expect, it } from 'vitest';
import { argumentReadings } from '../src/approval-rule.js';
import {
  approvalModeFor,
  approvalRuleMatcher,
  bindApprovalRule,
  canonicalArgument,
  defineTool,
  parseApprovalRule,
} from '../src/index.js';

const write = defineTool({
  name: 'write',
  description: 'w',
  parameters: { type: 'object', properties: { path: { type: 'string' }, note: { type: 'string' } } },
  execute: () => 'ok',
});
const read = defineTool({
  name: 'read',
  description: 'r',
  parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } },
  execute: () => 'ok',
});

describe('approval rules', () => {
  it('parses TOOL, TOOL:ARG=GLOB and TOOL:GLOB, and refuses anything else', () => {
    expect(parseApprovalRule('read_*')).toEqual({ tool: 'read_*' });
    expect(parseApprovalRule('fetch:url=https://x/*')).toEqual({
      tool: 'fetch',
      args: { url: 'https://x/*' },
    });
    expect(parseApprovalRule('read:*.md')).toEqual({ tool: 'read', value: '*.md' });
    expect(() => parseApprovalRule('bad tool:x')).toThrow(/TOOL:ARG=GLOB/);
  });

  it('binds TOOL:GLOB to the only string argument, and refuses it on two', () => {
    expect(bindApprovalRule(parseApprovalRule('read:*.md'), [read, write])).toEqual({
      tool: 'read',
      args: { path: '*.md' },
    });
    expect(() => bindApprovalRule(parseApprovalRule('write:*.txt'), [read, write])).toThrow(
      'write has 2 string arguments (path, note): write write:ARG=GLOB',
    );
    expect(() => bindApprovalRule(parseApprovalRule('*:*.txt'), [read, write])).toThrow(/2 string arguments/);
  });

  it('reads own properties only, on their canonical string form', () => {
    expect(canonicalArgument({ path: 'a' }, 'constructor')).toBeUndefined();
    expect(canonicalArgument({ path: 'a' }, 'toString')).toBeUndefined();
    expect(canonicalArgument({ a: { b: 1 } }, 'a.constructor')).toBeUndefined();
    expect(canonicalArgument({ n: 5 }, 'n')).toBe('5');
    expect(canonicalArgument({ ok: true }, 'ok')).toBe('true');
    expect(canonicalArgument({ o: { z: 1, a: [2, 'x'] } }, 'o')).toBe('{"a":[2,"x"],"z":1}');
    expect(canonicalArgument({ a: { b: 'deep' } }, 'a.b')).toBe('deep');
  });

  it('matches every named argument; a missing argument never matches', () => {
    const matches = approvalRuleMatcher({ tool: 'write', args: { path: '*.txt' } });
    expect(matches({ id: '1', name: 'write', arguments: { path: 'a.txt', note: 'x' } })).toBe(true);
    expect(matches({ id: '2', name: 'write', arguments: { path: '/etc/passwd', note: 'a.txt' } })).toBe(
      false,
    );
    expect(matches({ id: '3', name: 'write', arguments: { note: 'a.txt' } })).toBe(false);
  });

  it('an allow pattern never matches a `..` segment it does not spell out; a deny pattern does', () => {
    const call = (path: string) => ({ id: 'c', name: 'write', arguments: { path } });
    const allows = approvalRuleMatcher({ tool: 'write', args: { path: 'notes/*' } }, 'allow[0]', 'allow');
    const denies = approvalRuleMatcher({ tool: 'write', args: { path: 'notes/*' } }, 'deny[0]', 'deny');
    for (const path of ['notes/../../etc/passwd', 'notes/..', 'notes/a/..\\..\\x'])
      expect([allows(call(path)), denies(call(path))], path).toEqual([false, true]);
    for (const path of ['notes/a.md', 'notes/..notes.md', 'notes/a..b/c.md'])
      expect([allows(call(path)), denies(call(path))], path).toEqual([true, true]);
    const regex = approvalRuleMatcher({ tool: 'write', args: { path: '/^notes\\//' } }, 'allow[1]', 'allow');
    expect(regex(call('notes/../x'))).toBe(false);
    const spelled = approvalRuleMatcher(
      { tool: 'write', args: { path: '../shared/*' } },
      'allow[2]',
      'allow',
    );
    expect(spelled(call('../shared/a.md'))).toBe(true);
  });

  it('a deny rule reads the value of a tool that does not say how it reads it as a path and a URL too; an allow rule does not', () => {
    const call = (path: string) => ({ id: 'c', name: 'write', arguments: { path } });
    const denies = approvalRuleMatcher(
      { tool: 'write', args: { path: '/data/secret/*' } },
      'deny[0]',
      'deny',
    );
    for (const path of [
      '/data/secret/a',
      '/data/notes/../secret/a',
      '/data//secret/a',
      '/data/./secret/a',
      '/data/notes/x/../../secret/a',
    ])
      expect(denies(call(path), write), path).toBe(true);
    expect(denies(call('/data/notes/a'), write)).toBe(false);
    const url = approvalRuleMatcher(
      { tool: 'write', args: { path: 'https://api.example.com/admin*' } },
      'deny[1]',
      'deny',
    );
    for (const path of ['HTTPS://API.example.com:443/admin', 'https://api.example.com/x/../admin'])
      expect(url(call(path), write), path).toBe(true);
    // An allow rule keeps the value as written: `./notes/a` is still allowed by `./notes/*`.
    const allows = approvalRuleMatcher({ tool: 'write', args: { path: './notes/*' } }, 'allow[0]', 'allow');
    expect(allows(call('./notes/a'), write)).toBe(true);
  });

  it('a regex with the g or y flag matches each value from its start, call after call', () => {
    const denies = approvalRuleMatcher({ tool: 'read', args: { path: '/secret/g' } });
    const sticky = approvalRuleMatcher({ tool: 'read', args: { path: '/secret/y' } });
    for (const path of ['secret1', 'secret2', 'secret3']) {
      expect(denies({ id: path, name: 'read', arguments: { path } }), path).toBe(true);
      expect(sticky({ id: path, name: 'read', arguments: { path } }), path).toBe(true);
    }
  });

  it('reads a dotted name both as a key holding the dot and as the nested field', () => {
    expect(argumentReadings({ 'a.b': 'x', a: { b: 'y' } }, 'a.b')).toEqual(['x', 'y']);
    expect(argumentReadings({ a: { 'b.c': 1, b: { c: 2 } } }, 'a.b.c')).toEqual(['1', '2']);
    expect(argumentReadings({ a: { b: 'y' } }, 'a.constructor')).toEqual([]);
    const call = { id: 'c', name: 'read', arguments: { 'a.b': 'me', a: { b: 'root' } } };
    expect(approvalRuleMatcher({ tool: 'read', args: { 'a.b': 'me' } }, 'allow[0]', 'allow')(call)).toBe(
      false,
    );
    expect(approvalRuleMatcher({ tool: 'read', args: { 'a.b': 'root' } }, 'deny[0]', 'deny')(call)).toBe(
      true,
    );
  });

  it('picks the closest approval.tools pattern whatever the order; a tie asks more', () => {
    expect(approvalModeFor({ '*': 'never', 'write_*': 'always' }, ['write_file'])).toBe('always');
    expect(approvalModeFor({ 'write_*': 'always', write_file: 'never' }, ['write_file'])).toBe('never');
    expect(approvalModeFor({ 'write*': 'never', '*_file': 'always' }, ['write_file'])).toBe('always');
    expect(approvalModeFor({ '*': 'never' }, ['docs_read', 'read'])).toBe('never');
    expect(approvalModeFor({ 'w*': 'always' }, ['read'])).toBeUndefined();
  });
});
