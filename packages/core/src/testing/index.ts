import { ScriptModel, type ScriptTurn } from '../offline/script-model.js';

export type { RecordedRequest, ScriptTurn } from '../offline/script-model.js';
export { ScriptModel } from '../offline/script-model.js';

/**
 * A scripted model for tests: answers with the given turns in order, records every request in
 * `requests`, fails on a call it has no turn for, and `assertConsumed()` fails on unused turns.
 *
 * @example
 * const model = scriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: '3' }]);
 * await createAgent({ name: 'calc', provider: model, tools: [add] }).run('1+2?');
 * model.assertConsumed();
 */
export function scriptedModel(turns: readonly ScriptTurn[]): ScriptModel {
  return new ScriptModel(turns, { record: true });
}
export { messageEvent } from './message-event.js';
export {
  type ConformanceCase,
  type SessionStoreHarness,
  sessionStoreConformance,
} from './session-store-conformance.js';
