import { afterAll, expect, it } from 'vitest';
import { removeTempDirs } from '../support/cli.js';
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
