import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';

afterAll(removeTempDirs);

// A project as `agentctl init` writes it (an agent with a module tool, and one test).
async function initProject(): Promise<string> {
  const dir = await tempDir();
  const init = await agentctl(['init', dir]);
  expect(init.code).toBe(0);
  return dir;
}

// docs/cli.md: `--json` prints data for programs. Commands whose output has formats take it as
// `--format json`; a user who types it gets the JSON, not "unknown option" (exit 2).
describe('--json on the commands with output formats', () => {
  it('validate --json prints what validate --format json prints', async () => {
    const dir = await initProject();
    const json = await agentctl(['validate', '--json'], { cwd: dir });
    const formatted = await agentctl(['validate', '--format', 'json'], { cwd: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(formatted.stdout));
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: true, errorCount: 0 });
  });

  it('test --json prints the JSON report', async () => {
    const dir = await initProject();
    const json = await agentctl(['test', '--json'], { cwd: dir, timeoutMs: 60_000 });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.summary).toMatchObject({ total: 1, passed: 1, failed: 0 });
    expect(report.tests[0]).toMatchObject({ file: 'tests/assistant.yaml', status: 'passed' });
  });

  it('refuses --json beside another --format (exit 2)', async () => {
    const dir = await initProject();
    const both = await agentctl(['validate', '--json', '--format', 'sarif'], { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("option '--json' cannot be used with option '--format <format>'");
  });
});
