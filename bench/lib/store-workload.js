// What the store benchmarks append and how they time it: one event of a realistic size, and the
// wall time of each awaited call, and a file-store session log written directly. Shared by
// session-append.js and scale.js.

/** A message event of realistic size (~250 bytes of JSON) with a state delta, as runs append them. */
export function benchEvent(i) {
  return {
    type: 'message',
    id: `e${i}`,
    invocationId: 'bench',
    branch: 'bench',
    author: 'bench',
    time: 1_700_000_000_000 + i,
    message: { role: 'assistant', content: `message number ${i}: ${'lorem ipsum '.repeat(6)}` },
    stateDelta: { last: i },
  };
}

/** Wall milliseconds of each of `count` awaited calls, and (`.cpu`) this process's CPU ms of each. */
export async function timeEach(count, task) {
  const times = [];
  const cpu = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    await task(i);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
    times.push(performance.now() - start);
  }
  times.cpu = cpu;
  return times;
}

/**
 * The text of a file-store session log (`<id>.jsonl`, packages/store-file/README.md) holding `count`
 * events, one record line each, as appends leave it: a snapshot line, then a line per append.
 */
export function sessionLogText(id, count, time) {
  const snapshot = {
    version: 1,
    id,
    agent: 'bench',
    state: {},
    events: [],
    createdAt: time,
    updatedAt: time,
  };
  const lines = [JSON.stringify(snapshot)];
  for (let i = 0; i < count; i++) lines.push(JSON.stringify({ t: time, events: [benchEvent(i)] }));
  return `${lines.join('\n')}\n`;
}
