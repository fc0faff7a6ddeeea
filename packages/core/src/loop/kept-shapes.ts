/**
 * The last object made of each of the loop's own classes, kept alive until the next one replaces
 * it. V8 holds an object's hidden class (its map) only as long as some object has it, and optimized
 * code embeds the maps it was specialised on weakly: when a full collection finds no run in flight
 * (between two bursts of runs), every map of a run's objects dies, the loop's optimized code is
 * thrown away with them, and the next burst makes new maps and optimizes it all again (fifty to
 * seventy compilations per thousand runs; bench/README.md, "Session 5's cuts"). One object of
 * each class is enough to keep its map; the last ones keep at most one run (its runner and store
 * included) alive until the next run replaces them.
 */
export const keptShapes: Record<
  'runner' | 'run' | 'iterator' | 'lease' | 'deadline' | 'loop' | 'turn' | 'call',
  object | undefined
> = {
  runner: undefined,
  run: undefined,
  iterator: undefined,
  lease: undefined,
  deadline: undefined,
  loop: undefined,
  turn: undefined,
  call: undefined,
};
