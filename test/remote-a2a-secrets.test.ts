import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { type A2AServer, startA2AServer } from './support/a2a-server.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

let server: A2AServer | undefined;
afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

const SECRET = 'tok-very-secret-4242';

// A remote agent that says back what it was sent, in two events that split the secret.
describe("a project secret in a remote A2A agent's answer", () => {
  it('is hidden in the streamed text, the message, run_end and the session', async () => {
    server = await startA2AServer({
      parrot: {
        execute: (_request, _bus, say) => {
          say.task(TaskState.TASK_STATE_WORKING);
          say.artifact('a', 'Your key is tok-very-');
          say.artifact('b', 'secret-4242, kept.');
          say.status(TaskState.TASK_STATE_COMPLETED);
        },
      },
    });
    const dir = await tempProject({
      'agents/remote.yaml': `kind: agent\nname: parrot\ntype: a2a\nurl: ${server.url}/a2a/parrot\nheaders: { x-api-key: "\${REMOTE_KEY}" }\n`,
      '.env': `REMOTE_KEY=${SECRET}\n`,
    });
    const run = await agentctl(['run', 'parrot', 'my key?', '--json', '--session', 's'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const events = parseNdjson(run.stdout);
    const shown = events
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.text as string)
      .join('');
    expect(shown).toContain('Your key is ***');
    const answer = events.find((e) => e.type === 'message' && e.author === 'parrot') as {
      message: { content: string };
    };
    expect(answer.message.content).toBe(shown);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', output: shown });
    const session = await readFile(join(dir, '.agentctl/sessions/s.jsonl'), 'utf8');
    for (const leak of [SECRET, 'tok-very-', 'secret-4242']) {
      expect(run.stdout).not.toContain(leak);
      expect(session).not.toContain(leak);
    }
  });
});
