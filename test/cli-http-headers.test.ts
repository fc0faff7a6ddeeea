import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

describe('an HTTP header name that is no HTTP token', () => {
  it('is refused by validate and run at its key, before any request or session', async () => {
    const dir = await tempProject({
      'agents/a.yaml': `kind: model
name: m
provider: openai
model: gpt-4.1-mini
base_url: ${server.url}
options: { headers: { "X Team Id": ops } }
---
kind: agent
name: a
model: m
---
kind: tool
name: lookup
description: Looks an order up
parameters: { type: object, properties: {} }
http: { url: "https://shop.example/orders", headers: { "Api Key": "\${SHOP_KEY:-none}" } }
`,
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      [
        'agents/a.yaml:6:23: error: provider openai: `X Team Id` is not a valid key in option `headers`; expected extra HTTP headers sent with every request, named by HTTP tokens (letters, digits and -, no spaces). [plugin-options]',
        'agents/a.yaml:16:56: error: `Api Key` is not a valid key in `headers`; expected HTTP headers, named by HTTP tokens (letters, digits and -, no spaces); values may use ${VAR}. [schema]',
        '2 errors, 0 warnings',
        '',
      ].join('\n'),
    );
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('`X Team Id` is not a valid key in option `headers`');
    expect(run.stderr).not.toContain('session ');
    expect(server.requests).toEqual([]);
  });
});
