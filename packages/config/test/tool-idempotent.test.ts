import { afterEach, describe, expect, it } from 'vitest';
import { compileProject, createRegistry, formatDiagnostic, loadProject } from '../src/index.js';
import { project } from './helpers.js';

// `idempotent: true` is what lets a queue worker run a call again after a crash; the flag must reach
// the compiled tool the worker sees (through the secret-scrubbing wrapper every tool gets).
const FILES = {
  'agents/a.yaml': `kind: agent
name: a
model: offline/auto
tools: [again, once, fetch_again]
---
kind: tool
name: again
description: Safe to repeat.
parameters: { type: object, properties: {} }
command: { argv: [echo, hi] }
needs_approval: false
idempotent: true
---
kind: tool
name: once
description: Not safe to repeat.
parameters: { type: object, properties: {} }
command: { argv: [echo, hi] }
needs_approval: false
---
kind: tool
name: fetch_again
description: A GET is safe to repeat.
parameters: { type: object, properties: {} }
http: { url: "http://127.0.0.1:9/x" }
idempotent: true
`,
};

let dispose: (() => Promise<void>) | undefined;
afterEach(async () => dispose?.());

describe('tool idempotent from YAML', () => {
  it('reaches the compiled command and http tools, and is absent when not written', async () => {
    const root = await project(FILES);
    const loaded = await loadProject({ project: root, env: {} });
    const { runtime, diagnostics } = await compileProject(loaded, { env: {}, registry: createRegistry() });
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
    dispose = () => runtime!.dispose();
    const tools = runtime!.agents.get('a')!.tools;
    expect(tools.get('again')!.idempotent).toBe(true);
    expect(tools.get('fetch_again')!.idempotent).toBe(true);
    expect(tools.get('once')!.idempotent).toBeFalsy();
  });
});
