// One place that turns a subject key into a runnable subject, importing only what that subject needs
// (a child process measuring the floor never loads agentctl, one measuring a peer never loads another).
import { availablePeers, loadPeer } from './peer-subjects.js';

/** Every subject key, in table order: agentctl first, then the peers that are installed, the floor last. */
export function subjectKeys() {
  const { keys, skipped } = availablePeers();
  return { keys: ['agent', 'runner', 'tracingOff', 'tracingOn', ...keys, 'floor'], skipped };
}

/** Loads the subject `{ label, run(steps) }` for a key. */
export async function loadSubject(key) {
  if (key === 'tracingOff' || key === 'tracingOn') {
    return (await import('./tracing-subjects.js')).TRACING_SUBJECTS[key];
  }
  if (key === 'floor' || key === 'agent' || key === 'runner') {
    if (key === 'floor') return (await import('./floor-subject.js')).FLOOR;
    return (await import('./subjects.js')).SUBJECTS[key];
  }
  return loadPeer(key);
}
