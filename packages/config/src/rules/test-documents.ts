import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { envInName } from '../env/env-in-name.js';
import { didYouMean } from '../load/did-you-mean.js';
import type { TestSpec } from '../test-spec-types.js';
import { excerpt } from './excerpt.js';
import { schemaProblem } from './output-schema-valid.js';
import { type RuleContext, validEntries } from './rule.js';
import { undefinedModelMessage } from './undefined-model.js';
import { unknownProviderMessage } from './unknown-provider.js';

/**
 * `kind: test` documents name agents and models that exist, and their regular expressions and
 * output schemas compile: a test that cannot run is a validate error, not a failed run.
 */
export function testDocuments(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const agents = [...ctx.specs.agent.keys()];
  const models = [...ctx.specs.model.keys()];
  const providers = ctx.registry?.names('provider');
  for (const test of validEntries<TestSpec>(ctx, 'test')) {
    const spec = test.spec;
    const report = (path: Array<string | number>, rule: string, message: string, key = false) =>
      out.push(diagnostic(test.file, test.locate(path, { key }), rule, message));
    const agent = (name: string, path: Array<string | number>, key = false) => {
      if (!ctx.specs.agent.has(name))
        report(
          path,
          'unresolved-reference',
          `agent \`${excerpt(name)}\` is not defined${envInName(name) || didYouMean(name, agents)}`,
          key,
        );
    };
    const model = (ref: string, path: Array<string | number>) => {
      if (ctx.specs.model.has(ref)) return;
      const slash = ref.indexOf('/');
      if (slash <= 0) {
        report(path, 'unresolved-reference', undefinedModelMessage(ref, models));
        return;
      }
      const message =
        providers && unknownProviderMessage(ref.slice(0, slash), providers, ref.slice(slash + 1));
      if (message) report(path, 'unknown-provider', message);
    };
    agent(spec.agent, ['agent']);
    if (typeof spec.model === 'string') model(spec.model, ['model']);
    else if (spec.model) {
      for (const [name, ref] of Object.entries(spec.model)) {
        agent(name, ['model', name], true);
        model(ref, ['model', name]);
      }
    }
    spec.turns.forEach((turn, i) => {
      const expect = turn.expect;
      if (!expect) return;
      const at = (...path: Array<string | number>) => ['turns', i, 'expect', ...path];
      if (expect.transfer !== undefined) agent(expect.transfer, at('transfer'));
      if (expect.judge) model(expect.judge.model, at('judge', 'model'));
      const matches = expect.output?.matches;
      if (matches !== undefined) {
        try {
          new RegExp(matches);
        } catch (error) {
          report(
            at('output', 'matches'),
            'test-expectation',
            `not a valid regular expression: ${(error as Error).message}`,
          );
        }
      }
      // A `temp:` key lives for one invocation: it is gone from the state the step leaves.
      for (const key of Object.keys(expect.state ?? {}))
        if (key.startsWith('temp:'))
          report(
            at('state', key),
            'test-expectation',
            `\`${excerpt(key)}\` is a \`temp:\` key, which lives for one invocation only: the state after the step never has it, so this expectation could never pass; check what the step did with it (its answer, a tool's arguments), or keep it without \`temp:\``,
            true,
          );
      const schema = expect.output?.schema;
      const problem = schema === undefined ? undefined : schemaProblem(schema);
      if (problem) report(at('output', 'schema'), 'test-expectation', `not a valid JSON Schema: ${problem}`);
    });
  }
  return out;
}
