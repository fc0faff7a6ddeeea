import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type A2AServer, ENDLESS_BYTES, startA2AServer, textArtifact } from './support/a2a-server.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { waitFor } from './support/wait-for.js';

// `type: a2a` agents against servers built from `@a2a-js/sdk`'s server pieces that answer in
// ways an agentctl server never does: a whole task instead of a stream, a stream cut short, a
// card or a stream that never ends, a task that asks for authentication.
let server: A2AServer;
// Another origin, which the cards and redirects of `server` point at.
let elsewhere: A2AServer;
let dir: string;

beforeAll(async () => {
  elsewhere = await startA2AServer({
    catcher: {
      execute: (_request, _bus, say) => {
        say.task(TaskState.TASK_STATE_WORKING);
        say.artifact('a', 'Answered from elsewhere.');
        say.status(TaskState.TASK_STATE_COMPLETED);
      },
    },
  });
  server = await startA2AServer({
    // Does not stream: the SDK's client sends message/send and reads the task it returns. The
    // first message is asked a question; the answer to it ends the task with a second artifact.
    whole: {
      streaming: false,
      execute: (request, _bus, say) => {
        const draft = textArtifact('draft', 'Looking at order A-7.');
        if (!request.task) return say.task(TaskState.TASK_STATE_INPUT_REQUIRED, [draft], 'Refund all of it?');
        say.task(TaskState.TASK_STATE_COMPLETED, [draft, textArtifact('final', 'Refunded A-7 in full.')]);
      },
    },
    cutoff: {
      execute: (_request, _bus, say) => {
        say.task(TaskState.TASK_STATE_WORKING);
        say.artifact('a', 'Half an ans');
      },
    },
    locked: {
      execute: (_request, _bus, say) => {
        say.task(TaskState.TASK_STATE_WORKING);
        say.status(TaskState.TASK_STATE_AUTH_REQUIRED, 'sign in to the billing system first');
      },
    },
    // Five artifacts of a million characters each: more than an answer may be.
    flood: {
      execute: (_request, _bus, say) => {
        say.task(TaskState.TASK_STATE_WORKING);
        for (let i = 0; i < 5; i++) say.artifact(`part${i}`, 'x'.repeat(2 ** 20));
        say.status(TaskState.TASK_STATE_COMPLETED);
      },
    },
    // Speaks A2A 0.3 only, as most servers deployed before 1.0 do.
    older: {
      legacy: true,
      execute: (_request, _bus, say) => {
        say.task(TaskState.TASK_STATE_WORKING);
        say.artifact('a', 'Answered over A2A 0.3.');
        say.status(TaskState.TASK_STATE_COMPLETED);
      },
    },
    silent: { stream: 'silent' },
    nocard: { card: 'never' },
    // Does not stream, and its answer to a message (or its card) never stops coming.
    endless: { streaming: false, endless: 'answer' },
    hugecard: { endless: 'card' },
    // A card naming an endpoint on another origin, and a server that redirects there.
    moved: { endpoint: `${elsewhere.url}/a2a/catcher` },
    relative: { endpoint: '/a2a/relative' },
    bounced: { redirect: `${elsewhere.url}/a2a/catcher/.well-known/agent-card.json` },
    // Behind a proxy whose agent is down: its error page, 5 KB of HTML.
    down: {
      failure: {
        status: 502,
        type: 'text/html',
        body: `<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>${'<p>nginx</p>\n'.repeat(400)}</body></html>`,
      },
    },
  });
  const remote = (name: string, extra = '') =>
    `kind: agent\nname: r_${name}\ndescription: remote ${name}\ntype: a2a\nurl: ${server.url}/a2a/${name}\n${extra}`;
  dir = await tempProject({
    'agents/remote.yaml': [
      remote('whole'),
      remote('cutoff'),
      remote('locked'),
      remote('flood'),
      remote('older'),
      remote('silent', 'limits: { timeout: 1s }\n'),
      remote('nocard', 'limits: { timeout: 1s }\n'),
      remote('endless'),
      remote('hugecard'),
      remote('moved', 'headers: { x-api-key: "${REMOTE_KEY}" }\n'),
      remote('bounced', 'headers: { x-api-key: "${REMOTE_KEY}" }\n'),
      remote('down'),
      remote('relative'),
      `kind: agent\nname: r_moved_open\ntype: a2a\nurl: ${server.url}/a2a/moved\n`,
      // A key in the URL's query, as some A2A services take it.
      `kind: agent\nname: r_keyed\ntype: a2a\nurl: ${server.url}/a2a/whole?key=\${REMOTE_KEY}\n`,
      `kind: agent\nname: r_keyed_cutoff\ntype: a2a\nurl: ${server.url}/a2a/cutoff?key=\${REMOTE_KEY}\n`,
    ].join('---\n'),
  });
});
afterAll(async () => {
  await server.close();
  await elsewhere.close();
  await removeTempDirs();
});

const sessionOf = (stderr: string) => /session (\S+)/.exec(stderr)?.[1] ?? '';

describe('a remote A2A agent whose server misbehaves', () => {
  it('answers with the whole task when the server does not stream, and its question is answered by the next run of the session', async () => {
    const first = await agentctl(['run', 'r_whole', 'refund A-7'], { cwd: dir });
    expect(first.stderr).not.toContain('error');
    expect(first.code).toBe(0);
    // The question comes after what the task gave before it, on stdout like any answer.
    expect(first.stdout.trim()).toBe('Looking at order A-7.\n\nRefund all of it?');
    // Another process: the task waiting for input is found in the session, not in memory.
    const second = await agentctl(['run', 'r_whole', 'yes', '--session', sessionOf(first.stderr)], {
      cwd: dir,
    });
    expect(second.stderr).not.toContain('error');
    expect(second.code).toBe(0);
    // The draft was the first turn's artifact; only the new one is this turn's answer.
    expect(second.stdout.trim()).toBe('Refunded A-7 in full.');
  });

  it('talks to a server that speaks only A2A 0.3, from its 0.3 card', async () => {
    const result = await agentctl(['run', 'r_older', 'hello'], { cwd: dir });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('Answered over A2A 0.3.');
  });

  it('fails the run when the stream ends before the task did, naming the agent and its url', async () => {
    const result = await agentctl(['run', 'r_cutoff', 'hello'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error [PROVIDER_ERROR]: remote agent r_cutoff at ${server.url}/a2a/cutoff: its answer ended before its task did (the task was still working)`,
    );
  });

  it('fails the run when the task asks for authentication, pointing at the headers', async () => {
    const result = await agentctl(['run', 'r_locked', 'hello'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('remote agent r_locked at');
    expect(result.stderr).toContain(
      "its task needs authentication that agentctl cannot give: sign in to the billing system first; set the credentials in the agent's `headers`",
    );
  });

  it('stops reading an answer past 4 Mi characters and fails the run, keeping no such answer', async () => {
    const result = await agentctl(['run', 'r_flood', 'hello', '--json'], { cwd: dir });
    expect(result.code).toBe(1);
    const end = result.stdout.trim().split('\n').at(-1) ?? '';
    expect(JSON.parse(end)).toMatchObject({ type: 'run_end', status: 'error', output: '' });
    expect(result.stdout).toContain(
      `remote agent r_flood at ${server.url}/a2a/flood: its answer passed 4,194,304 characters, the most agentctl keeps of a remote answer; it stopped reading there`,
    );
  });

  it('stops reading a response that is no stream past 16 MiB, a whole task or a card, and fails the run naming the agent', async () => {
    for (const name of ['endless', 'hugecard']) {
      const result = await agentctl(['run', `r_${name}`, 'hello'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `remote agent r_${name} at ${server.url}/a2a/${name}: its response passed 16,777,216 bytes, the most agentctl reads of one that is not an event stream; it stopped reading there`,
      );
      // The connection was closed there: the server was not read to its end.
      await waitFor(() => server.sent[name] !== undefined, `${name}'s connection closed`);
      expect(server.sent[name]).toBeLessThan(ENDLESS_BYTES);
    }
  });

  it('sends an agent’s headers to the origin of its url only: a card naming another, or a redirect, fails the run', async () => {
    const env = { REMOTE_KEY: 'k3y-for-the-remote' };
    const moved = await agentctl(['run', 'r_moved', 'hello'], { cwd: dir, env });
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain(
      `remote agent r_moved at ${server.url}/a2a/moved: its card names ${elsewhere.url}/a2a/catcher, on another origin than its url; agentctl sends the agent's headers only to ${server.url}: put that address in its url if it is the agent's`,
    );
    const bounced = await agentctl(['run', 'r_bounced', 'hello'], { cwd: dir, env });
    expect(bounced.code).toBe(1);
    expect(bounced.stderr).toContain(
      `remote agent r_bounced at ${server.url}/a2a/bounced: ${server.url}/a2a/bounced/.well-known/agent-card.json answered with a redirect to ${elsewhere.url}/a2a/catcher/.well-known/agent-card.json, which agentctl does not follow with the agent's headers: put the address in its url`,
    );
    expect(elsewhere.keys).not.toContain('k3y-for-the-remote');
    expect(`${moved.stderr}${bounced.stderr}`).not.toContain('k3y-for-the-remote');
    const relative = await agentctl(['run', 'r_relative', 'hello'], { cwd: dir });
    expect(relative.code).toBe(1);
    expect(relative.stderr).toContain(
      `remote agent r_relative at ${server.url}/a2a/relative: its card names "/a2a/relative" as its endpoint, which is no absolute URL`,
    );
    // Without headers there is nothing to give away: the card is followed, as A2A says.
    const open = await agentctl(['run', 'r_moved_open', 'hello'], { cwd: dir });
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toContain('Answered from elsewhere.');
  });

  it('quotes a proxy’s error page by its title, not whole, in the failure and the session', async () => {
    const result = await agentctl(['run', 'r_down', 'hello', '--json'], { cwd: dir });
    expect(result.code).toBe(1);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.find((e) => e.type === 'error')?.message).toMatch(
      new RegExp(`^remote agent r_down at ${server.url}/a2a/down: .*502.*HTML page: 502 Bad Gateway$`),
    );
    expect(result.stdout).not.toContain('<p>nginx</p>');
  });

  it('holds a stream that never ends, and a card that never arrives, to the agent’s limits.timeout', async () => {
    for (const name of ['r_silent', 'r_nocard']) {
      const result = await agentctl(['run', name, 'hello'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error [TIMEOUT]: agent ${name} reached its time limit of 1000 ms`);
    }
  });

  it('fetches the card with the query of its url, and never prints a key put there', async () => {
    const env = { REMOTE_KEY: 'k3y-in-the-url' };
    const first = await agentctl(['run', 'r_keyed', 'refund A-7'], { cwd: dir, env });
    expect(first.code).toBe(0);
    expect(server.queries).toContain('?key=k3y-in-the-url');
    const failed = await agentctl(['run', 'r_keyed_cutoff', 'hello', '--json'], { cwd: dir, env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      `remote agent r_keyed_cutoff at ${server.url}/a2a/cutoff?key=***: its answer ended before its task did`,
    );
    expect(failed.stdout + failed.stderr).not.toContain('k3y-in-the-url');
    const session = /"sessionId":"([^"]+)"/.exec(failed.stdout)?.[1] ?? sessionOf(failed.stderr);
    const stored = await agentctl(['sessions', 'show', session, '--json'], { cwd: dir });
    expect(stored.stdout).toContain('its answer ended before its task did');
    expect(stored.stdout).not.toContain('k3y-in-the-url');
  });

  it('validate names the remote agents it did not reach; --connect reaches each card, an error at the url of one it cannot', async () => {
    const project = await tempProject({
      'agents/far.yaml': [
        `kind: agent\nname: r_ok\ntype: a2a\nurl: ${server.url}/a2a/whole\n`,
        `kind: agent\nname: r_missing\ntype: a2a\nurl: ${server.url}/a2a/nobody?key=\${REMOTE_KEY}\n`,
        `kind: agent\nname: r_mute\ntype: a2a\nurl: ${server.url}/a2a/nocard\nlimits: { timeout: 1s }\n`,
        `kind: agent\nname: r_huge\ntype: a2a\nurl: ${server.url}/a2a/hugecard\n`,
        `kind: agent\nname: r_far\ntype: a2a\nurl: ${server.url}/a2a/moved\nheaders: { x-api-key: "\${REMOTE_KEY}" }\n`,
      ].join('---\n'),
    });
    const env = { REMOTE_KEY: 'k3y-in-the-url' };
    const offline = await agentctl(['validate'], { cwd: project, env });
    expect(offline.code).toBe(0);
    expect(offline.stderr).toContain(
      'not reached offline: agent r_ok (a2a), agent r_missing (a2a), agent r_mute (a2a), agent r_huge (a2a), agent r_far (a2a)',
    );
    const connected = await agentctl(['validate', '--connect'], { cwd: project, env });
    expect(connected.code).toBe(1);
    expect(connected.stdout).toContain(
      `agents/far.yaml:9:6: error: remote agent \`r_missing\` cannot be reached: Failed to fetch Agent Card from ${server.url}/a2a/nobody/.well-known/agent-card.json?key=***: 404 [remote-agent]`,
    );
    expect(connected.stdout).toContain(
      'agents/far.yaml:14:6: error: remote agent `r_mute` cannot be reached: its card did not arrive within 1000 ms (limits.timeout) [remote-agent]',
    );
    expect(connected.stdout).toContain(
      'agents/far.yaml:20:6: error: remote agent `r_huge` cannot be reached: its response passed 16,777,216 bytes, the most agentctl reads of one that is not an event stream; it stopped reading there [remote-agent]',
    );
    expect(connected.stdout).toContain(
      `agents/far.yaml:25:6: error: remote agent \`r_far\` cannot be reached: its card names ${elsewhere.url}/a2a/catcher, on another origin than its url; agentctl sends the agent's headers only to ${server.url}: put that address in its url if it is the agent's [remote-agent]`,
    );
    expect(connected.stdout).not.toContain('r_ok');
    expect(connected.stdout).not.toContain('k3y-in-the-url');
  });

  it('validate refuses what a remote agent would ignore, at its line', async () => {
    const bad = await tempProject({
      'agents/bad.yaml': [
        'kind: agent',
        'name: far',
        'type: a2a',
        'url: http://127.0.0.1:1/a2a/far',
        'limits: { timeout: 5s, max_tokens: 100 }',
        'output_key: answer',
        'memory: mine',
        '---',
        'kind: memory',
        'name: mine',
        'backend: memory',
        '',
      ].join('\n'),
    });
    const result = await agentctl(['validate'], { cwd: bad });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'agents/bad.yaml:5:24: error: an a2a agent runs remotely and has no `limits.max_tokens`; only `limits.timeout` holds it',
    );
    expect(result.stdout).toContain(
      'agents/bad.yaml:6:1: error: an a2a agent runs remotely and has no `output_key`',
    );
    expect(result.stdout).toContain(
      'agents/bad.yaml:7:1: error: an a2a agent runs remotely and has no `memory`',
    );
    expect(result.stdout).not.toContain('limits.timeout`;');
  });
});
