import { describe, expect, it } from 'vitest';
import {
  type AnyTool,
  CANCELLED_RESULT,
  createAgent,
  createApprovalPolicy,
  defineTool,
  type Message,
  type ToolCall,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

function shell(runs: string[] = [], needsApproval?: boolean) {
  return defineTool<{ command: string; cwd?: string }>({
    name: 'shell',
    description: 'Runs a command',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' }, cwd: { type: 'string' } },
      required: ['command'],
    },
    needsApproval,
    execute: ({ command }) => {
      runs.push(command);
      return `ran ${command}`;
    },
  });
}

const call = (name: string, args: Record<string, unknown> = {}, id = 'c1'): ToolCall => ({
  id,
  name,
  arguments: args,
});
const plain = (name: string, properties: Record<string, unknown> = {}): AnyTool =>
  defineTool({ name, description: name, parameters: { type: 'object', properties }, execute: () => 'ok' });

describe('createApprovalPolicy', () => {
  it('deny wins over allow for the same call', () => {
    const policy = createApprovalPolicy({
      tools: { shell: 'always' },
      allow: [{ tool: 'shell' }],
      deny: [{ tool: 'shell', args: { command: 'rm *' } }],
    });
    expect(policy(call('shell', { command: 'rm -rf /' }), shell())).toBe('deny');
    expect(policy(call('shell', { command: 'ls -l' }), shell())).toBe('allow');
  });

  it('matches argument patterns as globs or /regex/ and tool names with wildcards', () => {
    const policy = createApprovalPolicy({
      default: 'always',
      allow: [
        { tool: 'shell', args: { command: 'git status*' } },
        { tool: 'fs_*', args: { path: '/^docs\\//' } },
      ],
      deny: [
        { tool: '*', args: { path: '/\\.env$/i' } },
        { tool: 'shell', args: { 'options.sudo': 'true' } },
      ],
    });
    const fsRead = plain('fs_read', { path: { type: 'string' } });
    expect(policy(call('shell', { command: 'git status --short' }), shell())).toBe('allow');
    expect(policy(call('shell', { command: 'git push' }), shell())).toBe('ask');
    expect(policy(call('fs_read', { path: 'docs/intro.md' }), fsRead)).toBe('allow');
    expect(policy(call('fs_read', { path: 'src/main.ts' }), fsRead)).toBe('ask');
    expect(policy(call('fs_read', { path: 'docs/.ENV' }), fsRead)).toBe('deny');
    expect(policy(call('other', { path: 'a/.env' }), plain('other'))).toBe('deny');
    expect(policy(call('shell', { command: 'x', options: { sudo: true } }), shell())).toBe('deny');
    // A rule on an argument the call does not have does not match.
    expect(policy(call('fs_read', {}), fsRead)).toBe('ask');
    // Nor does it vouch for an argument the schema does not declare (an open schema lets it in).
    expect(policy(call('fs_read', { path: 'docs/intro.md', mode: 'w' }), fsRead)).toBe('ask');
    // A rule naming no argument allows every call of the tool.
    const all = createApprovalPolicy({ default: 'always', allow: [{ tool: 'fs_read' }] });
    expect(all(call('fs_read', { path: 'docs/intro.md', mode: 'w' }), fsRead)).toBe('allow');
  });

  it('uses the mode of the tool: listed, else its own requirement, else the default', () => {
    const policy = createApprovalPolicy({
      default: 'never',
      tools: { 'danger_*': 'always', danger_safe: 'never' },
    });
    expect(policy(call('danger_drop'), plain('danger_drop'))).toBe('ask');
    expect(policy(call('danger_safe'), plain('danger_safe'))).toBe('allow');
    expect(policy(call('plain'), plain('plain'))).toBe('allow');
    // A command tool declares needsApproval: the policy leaves it to the tool.
    expect(policy(call('shell', { command: 'ls' }), shell([], true))).toBeUndefined();
    expect(createApprovalPolicy({ default: 'always' })(call('plain'), plain('plain'))).toBe('ask');
  });

  it('once-per-session asks until the tool has run in the conversation', () => {
    const policy = createApprovalPolicy({ tools: { shell: 'once-per-session' } });
    const tool = shell();
    const asked = (messages: Message[]) => policy(call('shell', { command: 'ls' }), tool, { messages });
    expect(asked([])).toBe('ask');
    const callMsg: Message = {
      role: 'assistant',
      content: null,
      toolCalls: [call('shell', { command: 'ls' }, 'p1')],
    };
    const refused: Message = {
      role: 'tool',
      toolCallId: 'p1',
      name: 'shell',
      content: 'The call was not run: denied by the user.',
      isError: true,
    };
    expect(asked([callMsg, refused])).toBe('ask');
    expect(asked([callMsg, { role: 'tool', toolCallId: 'p1', content: 'ran ls' }])).toBe('allow');
    expect(policy(call('shell', { command: 'ls' }), tool)).toBe('ask');
    // Cut off by a cancel, perhaps at its approval prompt: it approved nothing.
    const cancelled: Message = {
      role: 'tool',
      toolCallId: 'p1',
      name: 'shell',
      content: CANCELLED_RESULT,
      isError: true,
    };
    expect(asked([callMsg, cancelled])).toBe('ask');
    // Another agent's call of a tool of the same name approved nothing for this one.
    const ran: Message = { role: 'tool', toolCallId: 'p1', content: 'ran ls' };
    const by = (author: string | undefined) =>
      policy(call('shell', { command: 'ls' }), tool, {
        messages: [callMsg, ran],
        agent: 'prod',
        authorOf: () => author,
      });
    expect([by('desk'), by(undefined), by('prod')]).toEqual(['ask', 'ask', 'allow']);
  });

  it('refuses bad configuration with the field named', () => {
    expect(() => createApprovalPolicy({ deny: [{ tool: 'x', args: { a: '/(/' } }] })).toThrow(
      /approval rule deny\[0\]\.args\.a: invalid regular expression/,
    );
    expect(() => createApprovalPolicy({ tools: { x: 'sometimes' as never } })).toThrow(/approval\.tools\.x/);
    expect(() => createApprovalPolicy({ allow: [{} as never] })).toThrow(/approval rule allow\[0\]/);
  });
});

describe('the policy in a run', () => {
  it('a denied call is refused, an allowed one runs, an unmatched one pauses', async () => {
    const runs: string[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'shell', arguments: { command: 'rm -rf build' }, id: 'd' },
          { name: 'shell', arguments: { command: 'ls' }, id: 'a' },
          { name: 'shell', arguments: { command: 'make' }, id: 'q' },
        ],
      },
    ]);
    const agent = createAgent({
      name: 'ops',
      provider: model,
      tools: [shell(runs, true)],
      approvalPolicy: createApprovalPolicy({
        allow: [
          { tool: 'shell', args: { command: 'ls' } },
          { tool: 'shell', args: { command: 'rm *' } },
        ],
        deny: [{ tool: 'shell', args: { command: 'rm *' } }],
      }),
    });
    const result = await agent.run('clean up');
    expect(result.status).toBe('paused');
    expect(runs).toEqual(['ls']);
    expect(result.pending?.map((p) => p.call.id)).toEqual(['q']);
    const denied = result.toolCalls.find((c) => c.id === 'd');
    expect(denied?.isError).toBe(true);
    expect(String(denied?.result)).toMatch(/denied by the approval policy/);
  });

  it('once-per-session: after one approval later calls in the conversation run without asking', async () => {
    const runs: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'shell', arguments: { command: 'one' }, id: 's1' }] },
      { toolCalls: [{ name: 'shell', arguments: { command: 'two' }, id: 's2' }] },
      { text: 'both ran' },
      { toolCalls: [{ name: 'shell', arguments: { command: 'three' }, id: 's3' }] },
    ]);
    const agent = createAgent({
      name: 'ops',
      provider: model,
      tools: [shell(runs)],
      approvalPolicy: createApprovalPolicy({ tools: { shell: 'once-per-session' } }),
    });
    const asked: string[] = [];
    const result = await agent.run('go', {
      onApproval: async (pending) => {
        asked.push(pending.call.id);
        return true;
      },
    });
    expect(result.text).toBe('both ran');
    expect(asked).toEqual(['s1']);
    expect(runs).toEqual(['one', 'two']);
    // A fresh conversation asks again.
    const fresh = await agent.run('again', { messages: [] });
    expect(fresh.status).toBe('paused');
    expect(fresh.pending?.[0].call.id).toBe('s3');
  });

  it('once-per-session: a denial does not count as an approval', async () => {
    const runs: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'shell', arguments: { command: 'one' }, id: 's1' }] },
      { toolCalls: [{ name: 'shell', arguments: { command: 'two' }, id: 's2' }] },
      { text: 'done' },
    ]);
    const agent = createAgent({
      name: 'ops',
      provider: model,
      tools: [shell(runs)],
      approvalPolicy: createApprovalPolicy({ tools: { shell: 'once-per-session' } }),
    });
    const asked: string[] = [];
    await agent.run('go', {
      onApproval: async (pending) => {
        asked.push(pending.call.id);
        return pending.call.id !== 's1';
      },
    });
    expect(asked).toEqual(['s1', 's2']);
    expect(runs).toEqual(['two']);
  });
});
