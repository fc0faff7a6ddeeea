// The floor subject: the workload driven by the hand-written loop in workload.js, with no framework
// loaded in its process at all.
import { floorRun } from './workload.js';

/** The hand-written floor: `{ label, run(steps) }` like every other subject. */
export const FLOOR = {
  label: 'floor',
  async run(steps) {
    const result = await floorRun('go', steps);
    if (result.text !== 'done' || result.toolCalls.length !== steps) {
      throw new Error(
        `floor: expected ${steps} tool calls and "done", got ${result.toolCalls.length} and ${result.text}`,
      );
    }
    return result;
  },
};
