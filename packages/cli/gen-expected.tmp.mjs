import { loadProject } from '@agentctl/config';
import { defaultRegistry } from './dist/default-registry.js';
const write = process.env.WRITE === '1';
const { writeFileSync } = await import('node:fs');
for (const name of process.argv.slice(2)) {
  const dir = `../config/test/fixtures/invalid/${name}`;
  const loaded = await loadProject({ project: dir, env: {}, registry: defaultRegistry(), checkModules: true });
  console.log('##', name);
  for (const d of loaded.diagnostics) console.log(`${d.file}:${d.line}:${d.col} ${d.rule} ${d.severity}: ${d.message.slice(0,300)}`);
  if (write) writeFileSync(`${dir}/expected.json`, JSON.stringify(loaded.diagnostics.map(d => ({file:d.file, rule:d.rule, severity:d.severity, line:d.line, col:d.col})), null, 2) + '\n');
}
