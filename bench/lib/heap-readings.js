// What concurrent-runs.js's child reads of its memory as its last batch ends, before any collection
// (a heap space's physical size then is about its size at the peak: spaces grow during a batch and
// shrink at a collection); heap-spaces.js reports them.
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { mib } from './report.js';

// The physical size of a heap space in MiB.
function physical(spaces, name) {
  const space = spaces.find((s) => s.space_name === name);
  return space ? mib(space.physical_space_size) : 0;
}

/** The process's RSS and V8's heap, whole and by space, in MiB. */
export function heapReadings() {
  const rss = process.memoryUsage.rss();
  const heap = getHeapStatistics();
  const spaces = getHeapSpaceStatistics();
  return {
    rssMiB: mib(rss),
    heapMiB: mib(heap.total_physical_size),
    newSpaceMiB: physical(spaces, 'new_space'),
    oldSpaceMiB: physical(spaces, 'old_space'),
    codeSpaceMiB: physical(spaces, 'code_space'),
    largeObjectsMiB: physical(spaces, 'large_object_space') + physical(spaces, 'new_large_object_space'),
    outsideHeapMiB: mib(rss - heap.total_physical_size),
  };
}
