import { Session } from 'node:inspector/promises';

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

function total(node: ProfileNode): number {
  let bytes = node.selfSize;
  for (const child of node.children) bytes += total(child);
  return bytes;
}

/**
 * The bytes allocated while `work` runs, garbage included, as V8's sampling heap profiler
 * estimates them (one sample every `interval` bytes on average): a count of work done, not of
 * time, so it holds on a loaded machine.
 */
export async function allocatedBytes(work: () => Promise<void>, interval = 128): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: interval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    let failure: { error: unknown } | undefined;
    try {
      await work();
    } catch (error) {
      failure = { error };
    }
    const { profile } = await session.post('HeapProfiler.stopSampling');
    if (failure) throw failure.error;
    return total(profile.head as ProfileNode);
  } finally {
    session.disconnect();
  }
}
