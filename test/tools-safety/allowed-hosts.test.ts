import { afterAll, expect, it } from 'vitest';
import { agentctl, removeTempDirs } from '../support/cli.js';
import { probeProject, resultsByCall, runMain, scriptedAgent } from './probe-project.js';

// `host:port` pins a port; a URL leaves its scheme's default port out of its host, so a pin on
// the default port has to be compared with the port the URL will really use.

afterAll(removeTempDirs);

it("a YAML http tool's allowed host pinned to port 80 lets http://host/ through, and not https://host/", async () => {
  const dir = await probeProject({
    'agents/main.yaml': `${scriptedAgent('[api]', [
      { name: 'api', arguments: { scheme: 'http' } },
      { name: 'api', arguments: { scheme: 'https' } },
    ])}---
kind: tool
name: api
needs_approval: false
parameters: { type: object, properties: { scheme: { enum: [http, https] } }, required: [scheme] }
http: { url: "{{ args.scheme }}://127.0.0.1/nothing-listens-here", allowed_hosts: ["127.0.0.1:80"] }
timeout: 5s
`,
  });
  const run = await runMain(dir);
  expect(run.code, run.stderr).toBe(0);
  const results = resultsByCall(run.events) as Record<string, string>;
  // Port 80 is allowed: the request is made (whatever answers, or nothing).
  expect(results.call_1).not.toMatch(/allowed_hosts|valid URL/);
  expect(results.call_2).toBe('Tool api failed: host 127.0.0.1 is not in allowed_hosts (127.0.0.1:80)');
});

it('an allowed host written as a URL is an error at its line from validate and run, for built-ins and http tools', async () => {
  const dir = await probeProject({
    'agents/main.yaml': `kind: agent
name: main
model: offline/echo
tools:
  - builtin: http_get
    options: { allowed_hosts: [example.com, "https://api.example.com/v1"] }
  - api
---
kind: tool
name: api
parameters: { type: object, properties: {} }
http: { url: "https://api.example.com/v1/x", allowed_hosts: ["api.example.com/v1"] }
`,
  });
  const expected = [
    'agents/main.yaml:6:45: error: built-in http_get: `https://api.example.com/v1` is not a host name and matches no request; write `api.example.com` (a port may follow: host:port) [plugin-options]',
    'agents/main.yaml:12:62: error: tool kind http: `api.example.com/v1` is not a host name and matches no request; write `api.example.com` (a port may follow: host:port) [plugin-options]',
  ];
  const validate = await agentctl(['validate'], { cwd: dir });
  expect(validate.code).toBe(1);
  expect(validate.stdout.split('\n').filter((line) => line.includes('error:'))).toEqual(expected);
  const run = await agentctl(['run', 'main', 'hi'], { cwd: dir });
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n').filter((line) => line.includes('error:'))).toEqual(expected);
});
