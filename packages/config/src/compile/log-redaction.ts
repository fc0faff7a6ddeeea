import { redactor } from '@agentctl/core';
import type { AgentDefinition } from '../definitions.js';
import { redactionFromOptions, redactionOptions } from './builtin-middleware.js';
import type { Compiler } from './compiler.js';

/**
 * What an agent's middleware must apply to what it writes elsewhere (the `logging` middleware's
 * lines): the rules of every built-in `redaction` middleware of the agent, wherever it stands in
 * the list (a log written outside it would otherwise show what it replaces), then the project's
 * secrets hidden.
 */
export function logRedaction(spec: AgentDefinition, compiler: Compiler): (text: string) => string {
  const rules: Array<(text: string) => string> = [];
  // Only the built-in's rules are known; a `redaction` registered in its place keeps its own.
  const builtin = compiler.registry.middleware.get('redaction') === redactionFromOptions;
  for (const { name, options: given } of builtin ? spec.middleware : []) {
    const doc = compiler.specs.middleware.get(name);
    const docSpec = doc && compiler.definition('middleware', doc);
    const kind = doc ? docSpec?.builtin : name;
    if (kind !== 'redaction') continue;
    try {
      rules.push(redactor(redactionOptions({ ...docSpec?.options, ...given })));
    } catch {
      // A pattern that is no regular expression: the middleware itself reports it.
    }
  }
  const secrets = compiler.secrets;
  return (text) => secrets.scrub(rules.reduce((current, rule) => rule(current), text));
}
