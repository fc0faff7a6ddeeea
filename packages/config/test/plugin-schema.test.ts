import { createRequire } from 'node:module';
import { InMemorySessionStore, type Middleware } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import {
  compileProject,
  createRegistry,
  formatDiagnostic,
  loadProject,
  projectSchema,
} from '../src/index.js';
import { project } from './helpers.js';

const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');

const duration = { $ref: 'common.schema.json#/$defs/duration' };
const closed = (properties: object) => ({ type: 'object', additionalProperties: false, properties });

// A third party's provider and middleware, registered with their options schemas.
function thirdParty(seen: Array<Record<string, unknown>>) {
  const echo = createRegistry().describe('provider', 'offline')?.factory as never;
  const pass: Middleware = (action, next) => next(action);
  return createRegistry()
    .registerProvider(
      'acme',
      (model, ctx) => {
        seen.push(model.options);
        return (echo as (m: unknown, c: unknown) => never)(
          { ...model, provider: 'offline', model: 'echo' },
          ctx,
        );
      },
      {
        description: 'Acme models.',
        schema: closed({ region: { enum: ['eu', 'us'] }, idle_timeout: duration }),
      },
    )
    .registerMiddleware(
      'audit',
      (options) => {
        seen.push(options);
        return pass;
      },
      { description: 'Audits calls.', schema: closed({ log_level: { enum: ['info', 'debug'] } }) },
    )
    .registerMemory('vault', () => new InMemorySessionStore(), {
      schema: closed({ shards: { type: 'integer', minimum: 1 } }),
    });
}

const yaml = (region: string, level: string) => ({
  'agents/a.yaml': `kind: agent\nname: a\nmodel: acme-1\nmiddleware: [{ audit: { log_level: ${level} } }]\n---\nkind: model\nname: acme-1\nprovider: acme\nmodel: big\noptions: { region: ${region}, idle_timeout: 2s }\n`,
});

describe('a third-party plugin registered with an options schema', () => {
  it('appears in the assembled project schema, typed like a built-in', () => {
    const validate = new Ajv2020({ strict: false }).compile(projectSchema(thirdParty([])));
    const model = (options: object) => ({ kind: 'model', name: 'm', provider: 'acme', options });
    expect(validate(model({ region: 'eu', idle_timeout: '2s' }))).toBe(true);
    expect(validate(model({ regoin: 'eu' }))).toBe(false);
    expect(validate(model({ region: 'mars' }))).toBe(false);
    const agent = (options: object) => ({ kind: 'agent', name: 'a', middleware: [{ audit: options }] });
    expect(validate(agent({ log_level: 'debug' }))).toBe(true);
    expect(validate(agent({ log_levl: 'debug' }))).toBe(false);
    expect(validate({ kind: 'memory', name: 'v', backend: 'vault', options: { shards: 0 } })).toBe(false);
    // Without the plugin registered, the same schema has nothing to say about its options.
    const bare = new Ajv2020({ strict: false }).compile(projectSchema(createRegistry()));
    expect(bare(model({ regoin: 'eu' }))).toBe(true);
  });

  it('is enforced by validate, with the option named, and reaches the factory normalised', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const registry = thirdParty(seen);
    const bad = await loadProject({ project: await project(yaml('mars', 'loud')), env: {}, registry });
    expect(bad.diagnostics.map(formatDiagnostic)).toEqual([
      'agents/a.yaml:4:36: error: audit: option `log_level` must be one of info, debug (got "loud") [plugin-options]',
      'agents/a.yaml:10:20: error: provider acme: option `region` must be one of eu, us (got "mars") [plugin-options]',
    ]);
    const good = await loadProject({ project: await project(yaml('eu', 'debug')), env: {}, registry });
    expect(good.diagnostics).toEqual([]);
    const { runtime, diagnostics } = await compileProject(good, { env: {}, registry });
    expect(diagnostics).toEqual([]);
    expect(seen).toEqual([{ region: 'eu', idleTimeout: 2000 }, { logLevel: 'debug' }]);
    await runtime?.dispose();
  });
});
