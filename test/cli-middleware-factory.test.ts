import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const AGENTS = `kind: middleware
name: shapeless
module: ../mw/shapeless.js
---
kind: middleware
name: needy
module: ../mw/needy.js
---
kind: agent
name: a
model: offline/echo
middleware: [shapeless]
---
kind: agent
name: b
model: offline/echo
middleware: [needy]
---
kind: agent
name: c
model: offline/echo
middleware: [{ needy: { prefix: ok } }]
`;

describe('a module middleware whose factory run would refuse', () => {
  it('validate reports, as run does, a factory that returns no middleware or throws on the options given', async () => {
    const dir = await tempProject({
      'agents/a.yaml': AGENTS,
      'mw/shapeless.js': 'export default function make() { return 42; }\n',
      'mw/needy.js':
        "export default function make(options) {\n  if (!options.prefix) throw new Error('needs a prefix option');\n  return async (action, next) => next();\n}\n",
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toBe(
      [
        'agents/a.yaml:3:9: error: the middleware factory `default` of ../mw/shapeless.js did not return a middleware function (it must return `async (action, next) => ...`) [module-exports]',
        'agents/a.yaml:7:9: error: the middleware factory `default` of ../mw/needy.js failed with no options: needs a prefix option [module-exports]',
        '2 errors, 0 warnings',
        '',
      ].join('\n'),
    );
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((agent) => agentctl(['run', agent, 'hi'], { cwd: dir })),
    );
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('did not return a middleware function');
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('needs a prefix option');
    // The agent that gives the option runs: validate did not refuse it either (no error at its line).
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toBe('hi\n');
  });
});
