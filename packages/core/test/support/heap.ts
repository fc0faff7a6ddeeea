import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** The heap in use after two full collections: what is still reachable, for footprint tests. */
export function heapAfterGc(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}
