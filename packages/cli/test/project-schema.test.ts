import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { builtinInlineKeys, pluginSchema } from '@agentctl/config';
import { describe, expect, it } from 'vitest';
import { projectSchema } from '../src/commands/schema/project-schema.js';
import { defaultRegistry } from '../src/default-registry.js';

const requireFromConfig = createRequire(new URL('../../config/package.json', import.meta.url));
const { Ajv2020 } = requireFromConfig('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
const committed = new URL('../../../schemas/plugins.schema.json', import.meta.url);

describe('the project schema assembled from the registry', () => {
  it('is committed as generated: schemas/plugins.schema.json equals what `pnpm schema:write` writes', () => {
    const generated = pluginSchema(defaultRegistry(), builtinInlineKeys());
    expect(JSON.parse(readFileSync(committed, 'utf8')), 'run `pnpm schema:write`').toEqual(generated);
  });

  it('types provider, middleware, memory and built-in tool options, with extra_body the escape hatch', () => {
    const validate = new Ajv2020({ strict: false }).compile(projectSchema());
    const model = (options: object) => ({
      kind: 'model',
      name: 'm',
      provider: 'openai',
      model: 'x',
      options,
    });
    expect(validate(model({ extra_body: { anything: [1] } }))).toBe(true);
    expect(validate(model({ thinkng: true }))).toBe(false);
    expect(validate({ ...model({ anything: 1 }), provider: 'offline', model: 'echo' })).toBe(false);
    const agent = (extra: object) => ({ kind: 'agent', name: 'a', model: 'offline/echo', ...extra });
    expect(
      validate(agent({ tools: [{ builtin: 'shell', options: { timeout: '2s', allow: ['ls'] } }] })),
    ).toBe(true);
    expect(validate(agent({ tools: [{ builtin: 'shell', options: { timout: '2s' } }] }))).toBe(false);
    expect(validate(agent({ tools: [{ builtin: 'current_time', timezone: 'Europe/Oslo' }] }))).toBe(true);
    expect(validate(agent({ tools: [{ builtin: 'current_time', allowed_hosts: ['x'] }] }))).toBe(false);
    expect(validate(agent({ middleware: [{ retry: { max_attempts: 3 } }] }))).toBe(true);
    expect(validate(agent({ middleware: [{ retry: { max_atempts: 3 } }] }))).toBe(false);
    const mw = { kind: 'middleware', name: 'r', builtin: 'retry' };
    expect(validate({ ...mw, options: { initial_delay: '1s' } })).toBe(true);
    expect(validate({ ...mw, options: { initial_dela: '1s' } })).toBe(false);
    expect(validate({ kind: 'memory', name: 'm', options: { x: 1 } })).toBe(false);
    expect(validate({ kind: 'memory', name: 'm', path: '.sessions' })).toBe(true);
  });
});
