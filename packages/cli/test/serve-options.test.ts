import { describe, expect, it } from 'vitest';
import { serveOptions } from '../src/commands/serve/serve-options.js';
import { parseArgv } from './support/parse-argv.js';

describe('agentctl serve options', () => {
  it('has the documented defaults', async () => {
    const { command, options } = await parseArgv(['serve']);
    expect(command).toBe('serve');
    expect(serveOptions(options, {})).toEqual({
      host: '127.0.0.1',
      port: 8787,
      tokens: [],
      corsOrigins: [],
      graceMs: 10_000,
      maxRuns: 64,
      maxFollowers: 256,
      runTimeoutMs: 300_000,
      maxBodyBytes: 1_048_576,
      maxStreamBufferBytes: 1_048_576,
      exposeErrors: false,
      logFormat: 'text',
      watch: false,
      ui: false,
      publicUrl: undefined,
      trustProxy: false,
      heartbeatMs: 15_000,
    });
  });

  it('reads every flag and the tokens from the environment', async () => {
    const { options } = await parseArgv([
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--token-env',
      'KEYS',
      '--cors',
      'https://a.example',
      'https://b.example',
      '--grace',
      '2s',
      '--max-runs',
      '3',
      '--max-followers',
      '9',
      '--timeout',
      '1m',
      '--max-body',
      '1000',
      '--max-stream-buffer',
      '65536',
      '--expose-errors',
      '--log-format',
      'json',
      '--watch',
      '--ui',
      '--public-url',
      'https://agents.example.com/team/',
      '--trust-proxy',
      '--heartbeat',
      '5s',
    ]);
    expect(serveOptions(options, { KEYS: ' one , two ' })).toEqual({
      host: '0.0.0.0',
      port: 0,
      tokens: ['one', 'two'],
      corsOrigins: ['https://a.example', 'https://b.example'],
      graceMs: 2000,
      maxRuns: 3,
      maxFollowers: 9,
      runTimeoutMs: 60_000,
      maxBodyBytes: 1000,
      maxStreamBufferBytes: 65_536,
      exposeErrors: true,
      logFormat: 'json',
      watch: true,
      ui: true,
      publicUrl: 'https://agents.example.com/team',
      trustProxy: true,
      heartbeatMs: 5000,
    });
  });

  it('refuses bad numbers, durations and an open non-loopback host as usage errors', async () => {
    const usage = expect.objectContaining({ exitCode: 2 });
    expect(() => serveOptions({ port: '99999' }, {})).toThrow(usage);
    expect(() => serveOptions({ grace: 'soon' }, {})).toThrow(usage);
    expect(() => serveOptions({ maxRuns: '0' }, {})).toThrow(usage);
    expect(() => serveOptions({ maxFollowers: '0' }, {})).toThrow(usage);
    expect(() => serveOptions({ maxStreamBuffer: '10' }, {})).toThrow(/--max-stream-buffer must be/);
    expect(() => serveOptions({ timeout: '0s' }, {})).toThrow(/--timeout must be longer than 0/);
    expect(serveOptions({ grace: '0s' }, {}).graceMs).toBe(0);
    expect(() => serveOptions({ host: '10.0.0.5' }, {})).toThrow(/without a token/);
    expect(serveOptions({ host: '10.0.0.5' }, { AGENTCTL_SERVE_TOKEN: 'x' }).tokens).toEqual(['x']);
    expect(serveOptions({ host: '::1' }, {}).host).toBe('::1');
    expect(() => serveOptions({ tokenEnv: 'NOPE' }, {})).toThrow(/NOPE/);
    for (const bad of ['agents.example.com', 'ftp://agents.example.com', 'https://agents.example.com/?k=1'])
      expect(() => serveOptions({ publicUrl: bad }, {})).toThrow(/--public-url: /);
    expect(() => serveOptions({ publicUrl: 'https://u:p@agents.example.com' }, {})).toThrow(usage);
    for (const bad of ['0s', '5ms', '2h', 'often'])
      expect(() => serveOptions({ heartbeat: bad }, {})).toThrow(usage);
    expect(serveOptions({ heartbeat: '200ms' }, {}).heartbeatMs).toBe(200);
  });
});
