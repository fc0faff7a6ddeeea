import { getHeapSpaceStatistics } from 'node:v8';
import { loadSubject } from './lib/load-subject.js';
import { startRssSampler } from './lib/rss-sampler.js';
const key = process.argv[2];
const sampler = startRssSampler(2);
await sampler.ready();
const subject = await loadSubject(key);
const ns = () => { const s = getHeapSpaceStatistics(); const n = s.find(x => x.space_name === 'new_space'); const o = s.find(x => x.space_name === 'old_space'); return `new ${(n.space_size/1048576).toFixed(1)} old ${(o.space_size/1048576).toFixed(1)} rss ${(process.memoryUsage.rss()/1048576).toFixed(1)}`; };
console.log('loaded', ns());
for (let b = 0; b < 4; b++) {
  if (b > 0) gc();
  await Promise.all(Array.from({ length: 1000 }, () => subject.run(5)));
  console.log('batch', b, ns());
}
const { peakBytes } = await sampler.stop();
console.log('peak', (peakBytes/1048576).toFixed(1));
