import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCassette } from '../packages/config/src/index.js';
import { findPairingProblem } from '../packages/core/src/index.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// `max_history` bounds what a long session sends to the model. A window that began on the tool
// results ending the history sent them without the assistant message that made the calls: a
// request OpenAI and Anthropic refuse, and on which offline/auto, not seeing its own call, called
// the tool again until the run hit its limit.

describe('max_history on a conversation that ends with tool results', () => {
  it('sends each result with its call, and the run completes', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\n',
      'agents/a.yaml': [
        'kind: agent',
        'name: a',
        'model: offline/auto',
        'max_history: 1',
        'tools: [{ module: ../tools/ok.js }]',
        '',
      ].join('\n'),
      'tools/ok.js':
        "export default { name: 'ok', description: 'says ok', parameters: { type: 'object', properties: {} }, execute: () => 'ok' };\n",
    });
    const cassette = join(dir, 'calls.yaml');
    const run = await agentctl(['run', 'a', 'check it', '--record', cassette], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const recorded = await readCassette(cassette);
    expect(recorded.interactions).toHaveLength(2);
    const second = recorded.interactions[1].request.messages;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    for (const { request } of recorded.interactions)
      expect(findPairingProblem(request.messages)).toBeUndefined();
  });
});
