import { observeRuns } from '../packages/core/dist/index.js';
import { SUBJECTS } from './lib/subjects.js';
const mode = process.argv[2];
const OBS = { end() {}, fail() {} };
if (mode === 'hooks') observeRuns({ event() {}, modelCall() { return OBS; } });
if (mode === 'count') { const c = {}; observeRuns({ event(e) { c[e.type] = (c[e.type] ?? 0) + 1; } }); await SUBJECTS.runner.run(50); console.log(c); process.exit(0); }
const s = SUBJECTS.runner; const n = 1500;
for (let i = 0; i < 200; i++) await s.run(50);
const c0 = process.cpuUsage(); const t0 = performance.now();
for (let i = 0; i < n; i++) await s.run(50);
const c = process.cpuUsage(c0);
console.log(mode, 'wall', ((performance.now() - t0) * 1000 / n / 50).toFixed(2), 'cpu', ((c.user + c.system) / n / 50).toFixed(2));
