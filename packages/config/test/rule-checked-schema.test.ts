import { assertSessionId, RESERVED_AGENT_NAMES } from '@agentctl/core';
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { CRON_PATTERN } from '../src/schema/cron-pattern.js';
import { loaderSchema, RULE_CHECKED_DEFS } from '../src/schema/loader-schema.js';
import { loadSchema } from '../src/schemas.js';

type Defs = { $defs: Record<string, { pattern?: string; maxLength?: number }> };
const common = loadSchema('common') as Defs;

function parses(cron: string): boolean {
  try {
    CronExpressionParser.parse(cron);
    return true;
  } catch {
    return false;
  }
}

function validId(id: string): boolean {
  try {
    assertSessionId(id);
    return true;
  } catch {
    return false;
  }
}

describe('definitions checked by rules', () => {
  it('each exists in the published schema, and the loader reads it as true', () => {
    for (const [file, defs] of Object.entries(RULE_CHECKED_DEFS)) {
      const published = loadSchema(file) as Defs;
      const loader = loaderSchema(file) as { $defs: Record<string, unknown> };
      for (const def of Object.keys(defs)) {
        expect(published.$defs[def], `${file}#/$defs/${def}`).toBeTypeOf('object');
        expect(loader.$defs[def]).toBe(true);
      }
    }
  });

  it("the cron pattern is the code's, and agrees with the queue's parser on shapes and ranges", () => {
    expect(common.$defs.cronPattern.pattern).toBe(CRON_PATTERN);
    const pattern = new RegExp(CRON_PATTERN, 'u');
    const both = [
      '0 8 * * 1-5',
      '0 0 8 * * 1-5',
      '*/5 * * * *',
      '5/15 0-23/2 1,15 JAN-mar sun',
      ' 0\t8 * * * ',
      '0 8 ? * MON-FRI',
      '0 8 L * *',
      '0 8 * * 5#3',
      '0 8 * * FRIL',
      'H(0-29) H * * *',
      '00 08 01 01 07',
      '@daily',
      '@annually',
    ];
    const neither = [
      '0 8 * *',
      '* * * * * * *',
      '61 * * * *',
      '60 0 0 * * *',
      '0 24 * * *',
      '0 0 0 * *',
      '0 0 32 * *',
      '0 0 * 13 *',
      '0 8 * * 8',
      '*/0 * * * *',
      '0 8 15W * *',
      '0 8 LW * *',
      '0 8 * * L',
      '0 8 * * 1#6',
      '0 8 * * 5#3,1',
      '0 8 ,1 * *',
      '0 8 1 januar *',
      '@DAILY',
      '@reboot',
      'every day at 8',
    ];
    for (const cron of both) expect([cron, parses(cron), pattern.test(cron)]).toEqual([cron, true, true]);
    // "0 8 * *" the parser takes (filling in a field); the schedule-timing rule refuses it.
    for (const cron of neither)
      expect([cron, parses(cron) && cron !== '0 8 * *', pattern.test(cron)]).toEqual([cron, false, false]);
    // What only the parser refuses: a range backwards, a value listed twice.
    for (const cron of ['5-1 * * * *', '0 0 1,1 * *'])
      expect([parses(cron), pattern.test(cron)]).toEqual([false, true]);
  });

  it("the reserved agent names are core's", () => {
    const agent = loadSchema('agent') as { $defs: Record<string, { not?: { enum?: string[] } }> };
    expect(agent.$defs.unreservedName.not?.enum).toEqual([...RESERVED_AGENT_NAMES]);
  });

  it('the session id pattern agrees with the id rule of every store', () => {
    const { pattern, maxLength } = common.$defs.sessionIdRule;
    const re = new RegExp(pattern as string, 'u');
    const ids = [
      'digest',
      'digest-1',
      'a.b_c-d',
      'A'.repeat(128),
      'A'.repeat(129),
      '',
      '-x',
      '.x',
      'a..b',
      'a/b',
      'a b',
      'été',
      'index',
      'INDEX',
      'scopes',
      'con',
      'Nul',
      'com1',
      'lpt9',
      'com0',
      'indexes',
      'x.json',
      'x.JSONL',
      'x.lock',
      'x.lease',
      'x.tmp',
      'x.json.bak',
      'x.jso',
    ];
    for (const id of ids)
      expect([id, re.test(id) && id.length <= (maxLength as number)]).toEqual([id, validId(id)]);
  });
});
