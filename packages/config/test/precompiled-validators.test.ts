import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { jsonSchemaProblem } from '../src/load/json-schema-problem.js';
import {
  cachedDataFor,
  codeCacheFile,
  generatedHeader,
  precompiledValidators,
  runValidatorScript,
  schemasDigest,
  validatorScript,
} from '../src/load/precompiled-validators.js';
import { generateValidatorCode, writeValidatorCode } from '../src/load/validator-code.js';
import { KINDS, SCHEMA_DIR, schemaAjv } from '../src/schemas.js';
import { project } from './helpers.js';

const repo = join(SCHEMA_DIR, '..');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f));
}

/** Every document of the example agents and of the invalid fixtures, as plain data. */
function documents(): unknown[] {
  const files = [...yamlFiles(join(repo, 'agents')), ...yamlFiles(join(import.meta.dirname, 'fixtures'))];
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8'))
      .filter((doc) => doc.errors.length === 0)
      .flatMap((doc) => {
        try {
          return [doc.toJS({ maxAliasCount: 100 }) as unknown];
        } catch {
          return []; // the alias-bomb fixture
        }
      }),
  );
}

const code = generateValidatorCode();
const evaluate = (source: string) => runValidatorScript(validatorScript(source, 'schema-validators.cjs'));

describe('precompiled schema validators', () => {
  it('accept and reject every example and fixture document exactly as the compiled schemas do', () => {
    const generated = evaluate(code);
    let rejected = 0;
    let checked = 0;
    for (const data of documents()) {
      const kind = (data as { kind?: unknown } | null)?.kind;
      if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) continue;
      const compiled = schemaAjv().getSchema(`${kind}.schema.json`);
      const precompiled = generated[kind];
      expect(precompiled).toBeTypeOf('function');
      const valid = compiled?.(data);
      expect(precompiled?.(data)).toBe(valid);
      // The error mapping reads schemaPath, params, schema and parentSchema: all must match.
      expect(precompiled?.errors ?? null).toEqual(compiled?.errors ?? null);
      checked++;
      if (!valid) rejected++;
    }
    expect(checked).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(10);
  });

  it('hold the script turns validator the offline provider uses', () => {
    const turns = evaluate(code).turns;
    expect(turns?.([{ text: 'hi' }])).toBe(true);
    expect(turns?.([{ txt: 'hi' }])).toBe(false);
  });

  it('are used only while the schemas are the ones they were generated from', async () => {
    const root = await project({});
    const schemas = join(root, 'schemas');
    cpSync(SCHEMA_DIR, schemas, { recursive: true });
    const body = code.slice(code.indexOf('\n') + 1);
    const file = join(root, 'fresh.cjs');
    writeFileSync(file, generatedHeader(schemasDigest(schemas)) + body);
    const fresh = precompiledValidators(schemas, file);
    expect(fresh?.agent?.({ kind: 'agent', name: 'a' })).toBe(true);

    writeFileSync(
      join(schemas, 'common.schema.json'),
      readFileSync(join(schemas, 'common.schema.json'), 'utf8').replace('{0,63}', '{0,7}'),
    );
    const stale = join(root, 'stale.cjs');
    writeFileSync(stale, generatedHeader(schemasDigest(SCHEMA_DIR)) + body);
    expect(precompiledValidators(schemas, stale)).toBeUndefined();
    expect(precompiledValidators(schemas, join(root, 'missing.cjs'))).toBeUndefined();
  });

  it('load with the V8 code cache the build writes, and never with one made from other code', async () => {
    const root = await project({});
    const file = writeValidatorCode(join(root, 'cached.cjs'));
    const written = readFileSync(file, 'utf8');
    const cache = readFileSync(codeCacheFile(file));
    const cachedData = cachedDataFor(written, cache);
    expect(cachedData).toBeInstanceOf(Buffer);
    expect(validatorScript(written, file, cachedData).cachedDataRejected).toBe(false);
    expect(
      precompiledValidators(SCHEMA_DIR, file)?.model?.({ kind: 'model', name: 'm', provider: 'offline' }),
    ).toBe(true);
    // Same length, other code: V8 itself would take the cache, so the digest must refuse it.
    const other = written.replace('"use strict";', '"use strict"!');
    expect(other.length).toBe(written.length);
    expect(cachedDataFor(other, cache)).toBeUndefined();

    const junk = join(root, 'junk.cjs');
    writeFileSync(junk, code);
    writeFileSync(codeCacheFile(junk), 'not a code cache');
    expect(precompiledValidators(SCHEMA_DIR, junk)?.project?.({ kind: 'project', name: 'p' })).toBe(true);
  });

  it('fall back to compiling when the generated file does not run', async () => {
    const root = await project({});
    const damaged = join(root, 'damaged.cjs');
    writeFileSync(damaged, `${generatedHeader(schemasDigest(SCHEMA_DIR))}exports.agent = (`);
    expect(precompiledValidators(SCHEMA_DIR, damaged)).toBeUndefined();
  });
});

describe('jsonSchemaProblem', () => {
  const meta = evaluate(code).meta;
  const schemas: unknown[] = [
    { type: 'object', properties: { q: { enum: ['billing', 'tech'] } }, required: ['q'] },
    { type: 'strng' },
    { type: 'object', properties: { a: { type: 5 } } },
    { required: 'a' },
    { minLength: -1 },
    { anyOf: [] },
    { items: { type: 'array', items: { minItems: 'x' } } },
    { $ref: '#/$defs/missing' },
    { type: 'string', pattern: '(' },
    { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
    { type: 'object', properties: { p: { $ref: '#/$defs/p' } }, $defs: { p: { type: 'string' } } },
    { 'x-vendor': true, type: 'string' },
    true,
    'not a schema',
  ];

  it('says what Ajv compiling the schema says, with or without the precompiled meta-schema', () => {
    expect(meta).toBeTypeOf('function');
    // Fresh copies: Ajv caches by object, and a second compile of one that failed does not throw.
    for (const schema of schemas) {
      expect(jsonSchemaProblem(structuredClone(schema), meta)).toBe(
        jsonSchemaProblem(structuredClone(schema), undefined),
      );
    }
  });

  it('finds the problems', () => {
    expect(jsonSchemaProblem(schemas[0], meta)).toBeUndefined();
    expect(jsonSchemaProblem({ type: 'strng' }, meta)).toMatch(
      /^schema is invalid: data\/type must be equal/,
    );
    expect(jsonSchemaProblem({ $ref: '#/$defs/missing' }, meta)).toMatch(/can't resolve reference/);
    expect(jsonSchemaProblem({ pattern: '(' }, meta)).toMatch(/Invalid regular expression/);
  });
});
