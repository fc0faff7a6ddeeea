import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent, SessionExport } from '@agentctl/core';
import { FileSessionStore } from '@agentctl/store-file';
import { afterEach, describe, expect, it } from 'vitest';
import { exportText } from '../src/commands/sessions/export-text.js';
import { type SessionsStore, sessionsCommand } from '../src/commands/sessions/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function project(): Promise<{ root: string; store: FileSessionStore }> {
  const root = await mkdtemp(join(tmpdir(), 'agentctl-sessions-cli-'));
  dirs.push(root);
  return { root, store: new FileSessionStore({ path: join(root, '.agentctl/sessions') }) };
}

async function call(root: string, action: string, args: string[] = [], json = false) {
  let stdout = '';
  let stderr = '';
  const code = await sessionsCommand(
    action,
    args,
    { project: root, json },
    {
      stdout: (s) => {
        stdout += s;
      },
      stderr: (s) => {
        stderr += s;
      },
    },
  );
  return { code, stdout, stderr };
}

const base = { invocationId: 'inv1', branch: 'triage', time: Date.UTC(2026, 0, 2, 3, 4, 5) };
const conversation: AgentEvent[] = [
  { ...base, id: 'e0', author: 'triage', type: 'run_start', input: 'Where is order 42?' },
  {
    ...base,
    id: 'e1',
    author: 'user',
    type: 'message',
    message: { role: 'user', content: 'Where is order 42?' },
  },
  {
    ...base,
    id: 'e2',
    author: 'triage',
    type: 'message',
    message: {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { id: 42 } }],
    },
  },
  {
    ...base,
    id: 'e3',
    author: 'triage',
    type: 'tool_call',
    call: { id: 'c1', name: 'lookup_order', arguments: { id: 42 } },
  },
  {
    ...base,
    id: 'e4',
    author: 'triage',
    type: 'tool_result',
    callId: 'c1',
    name: 'lookup_order',
    content: '{"status":"shipped"}',
    isError: false,
    duration: 3,
  },
  {
    ...base,
    id: 'e5',
    author: 'triage',
    type: 'message',
    message: { role: 'assistant', content: 'Order 42 has shipped.' },
    stateDelta: { last_order: 42 },
  },
];

describe('agentctl sessions', () => {
  it('lists sessions as a table and as JSON, children under their parent', async () => {
    const { root, store } = await project();
    await store.create({ id: 'chat-1', agent: 'triage' });
    await store.append('chat-1', conversation);
    await store.create({ id: 'chat-1-billing', agent: 'billing', parentId: 'chat-1', parentCallId: 'c9' });
    await store.create({ id: 'paused-1', agent: 'refunds' });
    await store.setCheckpoint('paused-1', { version: 1 });

    const table = await call(root, 'list');
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+AGENT\s+EVENTS\s+PAUSED\s+UPDATED$/);
    expect(
      lines.slice(1).map((l) =>
        l
          .trim()
          .split(/\s{2,}/)
          .slice(0, 4),
      ),
    ).toEqual([
      ['paused-1', 'refunds', '0', 'yes'],
      ['chat-1', 'triage', '6', 'no'],
      ['└ chat-1-billing', 'billing', '0', 'no'],
    ]);
    expect(lines[3]).toMatch(/^ {2}└ chat-1-billing/);

    const json = await call(root, 'list', [], true);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.map((s: { id: string; eventCount: number }) => [s.id, s.eventCount])).toEqual([
      ['chat-1', 6],
      ['chat-1-billing', 0],
      ['paused-1', 0],
    ]);
  });

  it('shows the transcript with tool calls and the tree of child sessions', async () => {
    const { root, store } = await project();
    await store.create({ id: 'chat-1', agent: 'triage' });
    await store.append('chat-1', conversation);
    await store.create({ id: 'kid', agent: 'billing', parentId: 'chat-1', parentCallId: 'c7' });
    await store.create({ id: 'grandkid', agent: 'ledger', parentId: 'kid', parentCallId: 'c8' });
    await store.create({ id: 'kid2', agent: 'tech', parentId: 'chat-1' });

    const { code, stdout } = await call(root, 'show', ['chat-1']);
    expect(code).toBe(0);
    expect(stdout).toContain('session chat-1 (agent triage)');
    const body = stdout.split('\n');
    const start = body.indexOf('user: Where is order 42?');
    expect(body.slice(start, start + 4)).toEqual([
      'user: Where is order 42?',
      '  → lookup_order({"id":42})',
      '  ← lookup_order: {"status":"shipped"}',
      'triage: Order 42 has shipped.',
    ]);
    expect(stdout).toContain('state: {"last_order":42}');
    const tree = body.slice(body.indexOf('child sessions:') + 1, body.indexOf('child sessions:') + 4);
    expect(tree).toEqual([
      '├─ kid (billing, 0 events) via c7',
      '│  └─ grandkid (ledger, 0 events) via c8',
      '└─ kid2 (tech, 0 events)',
    ]);
  });

  it('marks a call its run never finished even when a later run used the same call id', async () => {
    const { root, store } = await project();
    await store.create({ id: 'reused', agent: 'triage' });
    // The first run was killed inside c1 (no result, no run_end); the next one called c1 again.
    const killed = conversation.slice(0, 4);
    const next = conversation.map((e) => ({ ...e, id: `n${e.id}`, invocationId: 'inv2' }));
    await store.append('reused', [...killed, ...next]);
    const { code, stdout } = await call(root, 'show', ['reused']);
    expect(code).toBe(0);
    const body = stdout.split('\n');
    const start = body.indexOf('user: Where is order 42?');
    expect(body.slice(start, start + 7)).toEqual([
      'user: Where is order 42?',
      '  → lookup_order({"id":42})',
      '    ✗ no result: the run stopped before this call finished',
      'user: Where is order 42?',
      '  → lookup_order({"id":42})',
      '  ← lookup_order: {"status":"shipped"}',
      'triage: Order 42 has shipped.',
    ]);
  });

  it('reports a missing or corrupt session in one line with exit 1, and list still works', async () => {
    const { root, store } = await project();
    await store.create({ id: 'ok' });
    await store.create({ id: 'broken', agent: 'x' });
    await store.append('broken', conversation);
    const file = join(root, '.agentctl/sessions/broken.jsonl');
    await truncate(file, 40);

    const missing = await call(root, 'show', ['nope']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^agentctl: no session nope in /);

    const corrupt = await call(root, 'show', ['broken']);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain(`session file ${file} is corrupt`);
    expect(corrupt.stderr).not.toMatch(/\n\s+at /);

    const listed = await call(root, 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/broken\s+-\s+corrupt/);
    expect(listed.stdout).toMatch(/ok\s+-\s+0\s+no/);
    expect(listed.stderr).toContain(file);

    // An id no store accepts is bad usage, with the rule for ids.
    const bad = await call(root, 'show', ['../etc/passwd']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid session id');
    expect(bad.stderr).toContain('a session id is 1-128 characters');
  });

  it('removes, exports to a file and imports a session tree', async () => {
    const { root, store } = await project();
    await store.create({ id: 'chat-1', agent: 'triage' });
    await store.append('chat-1', conversation);
    await store.create({ id: 'kid', parentId: 'chat-1' });
    const out = join(root, 'chat-1.json');

    expect((await call(root, 'export', ['chat-1', out])).code).toBe(0);
    const exported = JSON.parse(await readFile(out, 'utf8'));
    expect(exported.session.events).toHaveLength(6);
    expect(exported.children[0].session.id).toBe('kid');

    expect(await call(root, 'rm', ['chat-1'])).toMatchObject({ code: 0, stdout: 'removed chat-1\n' });
    expect((await call(root, 'rm', ['chat-1'])).code).toBe(1);
    expect(await store.get('kid')).toBeUndefined();

    expect(await call(root, 'import', [out])).toMatchObject({ code: 0, stdout: 'imported chat-1\n' });
    expect((await store.get('chat-1'))?.events).toHaveLength(6);
    expect((await store.list({ parentId: 'chat-1' })).map((s) => s.id)).toEqual(['kid']);

    await writeFile(join(root, 'bad.json'), '{"format":"nope"}');
    const bad = await call(root, 'import', [join(root, 'bad.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.json: export: "format" must be "agentctl-session"');
  });

  it('exports into a folder it makes; a file in the way of the path is bad usage (exit 2) naming it', async () => {
    const { root, store } = await project();
    await store.create({ id: 'chat-1', agent: 'triage' });
    const nested = join(root, 'exports/2026/chat-1.json');
    expect((await call(root, 'export', ['chat-1', nested])).code).toBe(0);
    expect(JSON.parse(await readFile(nested, 'utf8')).session.id).toBe('chat-1');
    const blocked = await call(root, 'export', ['chat-1', join(nested, 'under-a-file.json')]);
    expect(blocked).toMatchObject({ code: 2, stdout: '' });
    expect(blocked.stderr).toContain(`sessions export: ${nested} is not a folder; give the path of a file`);
  });

  it('answers bad usage with exit 2', async () => {
    const { root } = await project();
    expect((await call(root, 'frobnicate')).code).toBe(2);
    expect((await call(root, 'show')).code).toBe(2);
    expect(await call(root, 'list')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^no sessions in /),
    });
  });
});

describe('a session too long for one string (over 512 MB of JSON)', () => {
  // Six events sharing one 90 MB string: 566 MB of JSON, while the test holds 90 MB.
  const big = 'x'.repeat(90 * 1024 * 1024);
  const events: AgentEvent[] = Array.from({ length: 6 }, (_, i) => ({
    ...base,
    id: `b${i}`,
    author: 'triage',
    type: 'tool_result',
    callId: `c${i}`,
    name: 'dump',
    content: big,
    isError: false,
    duration: 1,
  }));
  const session = { id: 'huge', version: 1, agent: 'triage', state: {}, events, createdAt: 1, updatedAt: 2 };
  const data: SessionExport = { format: 'agentctl-session', version: 1, session, children: [] };
  // The store the command works on, holding only this session (the file store reads it the same way).
  const store = {
    get: async (id: string) => (id === 'huge' ? session : undefined),
    list: async () => [],
    exportSession: async () => data,
  } as unknown as SessionsStore;

  async function printed(action: string, args: string[], json: boolean) {
    let length = 0;
    let shown = '';
    let stderr = '';
    const code = await sessionsCommand(
      action,
      args,
      { json, store },
      {
        stdout: (s) => {
          length += s.length;
          // Kept with the long string cut out, to read the rest back as JSON.
          shown += s.replaceAll(big, 'BIG');
        },
        stderr: (s) => {
          stderr += s;
        },
      },
    );
    return { code, length, shown, stderr };
  }

  async function expectWhole(out: Awaited<ReturnType<typeof printed>>) {
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.length).toBeGreaterThan(6 * big.length);
    const read = JSON.parse(out.shown) as SessionExport;
    expect(read.session.events.map((e) => (e.type === 'tool_result' ? e.content : e.type))).toEqual(
      Array(6).fill('BIG'),
    );
    expect(read).toMatchObject({
      format: 'agentctl-session',
      version: 1,
      session: { id: 'huge' },
      children: [],
    });
  }

  it('shows it with --json, an event at a time', async () => {
    await expectWhole(await printed('show', ['huge'], true));
  }, 60_000);

  it('exports it to stdout, an event at a time', async () => {
    await expectWhole(await printed('export', ['huge'], false));
  }, 60_000);
});

describe('the text of an export', () => {
  it('is what JSON.stringify(export, null, 2) writes, children, lists, objects and all', () => {
    const data = {
      format: 'agentctl-session',
      version: 1,
      session: {
        id: 'chat-1',
        version: 1,
        agent: 'triage',
        left: undefined,
        state: { nested: { list: [1, { a: 'two\nlines' }], empty: {} }, none: [] },
        events: conversation,
        messages: [{ role: 'user', content: 'hi' }, undefined],
        checkpoint: { pending: [{ call: { id: 'c1', name: 'x', arguments: {} } }] },
        createdAt: 1,
        updatedAt: 2,
      },
      children: [
        {
          format: 'agentctl-session',
          version: 1,
          session: {
            id: 'kid',
            version: 1,
            parentId: 'chat-1',
            state: {},
            events: [],
            createdAt: 3,
            updatedAt: 4,
          },
          children: [
            {
              format: 'agentctl-session',
              version: 1,
              session: {
                id: 'grandkid',
                version: 1,
                state: {},
                events: conversation.slice(0, 2),
                createdAt: 5,
                updatedAt: 6,
              },
              children: [],
            },
          ],
        },
      ],
    } as unknown as SessionExport;
    expect([...exportText(data)].join('')).toBe(`${JSON.stringify(data, null, 2)}\n`);
  });
});
