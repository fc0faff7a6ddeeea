import { posix } from 'node:path';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { excerpt } from '../rules/excerpt.js';
import { KINDS, type Kind, kindValidator } from '../schemas.js';
import type { AgentSpec } from '../spec-types.js';
import { didYouMean } from './did-you-mean.js';
import { type DataPath, locate, locateKey } from './document-positions.js';
import type { ParsedDocument } from './parse-file.js';
import type { SpecEntry } from './project-specs.js';
import { schemaDiagnostics } from './schema-errors.js';

/** An entry of the index, with whether its document passed the schema. */
export interface IndexedEntry extends SpecEntry {
  /** False when the schema check failed: rules then only use its name. */
  valid: boolean;
}

/** The result of checking one document. */
export interface CheckedDocument {
  entries: IndexedEntry[];
  diagnostics: Diagnostic[];
}

function entryFor(
  parsed: ParsedDocument,
  kind: Kind,
  spec: Record<string, unknown>,
  prefix: DataPath,
  valid: boolean,
  parent?: string,
): IndexedEntry {
  const { positions } = parsed;
  const locateIn = (path: DataPath, options?: { key?: boolean }) =>
    locate(positions, [...prefix, ...path], options);
  return {
    kind,
    name: String(spec.name),
    spec,
    file: parsed.file,
    absFile: parsed.absFile,
    range: locateIn(['name']),
    locate: locateIn,
    parent,
    valid,
  };
}

function inlineAgents(parsed: ParsedDocument, agent: AgentSpec, prefix: DataPath, out: IndexedEntry[]): void {
  agent.sub_agents?.forEach((sub, index) => {
    if (typeof sub !== 'object' || sub === null) return;
    const path = [...prefix, 'sub_agents', index];
    out.push(entryFor(parsed, 'agent', sub as unknown as Record<string, unknown>, path, true, agent.name));
    inlineAgents(parsed, sub, path, out);
  });
}

/** Checks one document's `kind` and schema, and makes its index entries (inline agents included). */
export function checkDocument(parsed: ParsedDocument, options: { projectFile: boolean }): CheckedDocument {
  const { positions, file, value } = parsed;
  const diagnostics: Diagnostic[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const range = locate(positions, []);
    // A list of documents is the usual way to get here: say how to write several in one file.
    const hint = Array.isArray(value)
      ? ', not a list: write each document without the leading `- `, and put `---` between them'
      : `, not ${value === null ? 'an empty value' : `a single value (${excerpt(String(value))})`}`;
    diagnostics.push(
      diagnostic(file, range, 'schema', `a document must be a mapping with a \`kind\` and a \`name\`${hint}`),
    );
    return { entries: [], diagnostics };
  }
  const record = value as Record<string, unknown>;
  const kind = record.kind;
  if (kind === undefined) {
    const range = locateKey(positions, [Object.keys(record)[0] ?? '']);
    // `run --record` and `test --update` write cassettes wherever asked, often beside the agents.
    const cassette = 'version' in record && 'interactions' in record;
    diagnostics.push(
      diagnostic(
        file,
        range,
        'unknown-kind',
        cassette
          ? `this file is a cassette (recorded model calls), not a document of the project: add \`exclude: [${posix.dirname(file)}/**]\` to agentctl.yaml, or keep cassettes outside the included folders`
          : `document has no \`kind\`; expected one of ${KINDS.join(', ')}${noKindHint(record)}`,
      ),
    );
    return { entries: [], diagnostics };
  }
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
    const range = locate(positions, ['kind']);
    const hint = typeof kind === 'string' ? didYouMean(kind, KINDS) : '';
    diagnostics.push(
      diagnostic(
        file,
        range,
        'unknown-kind',
        `unknown kind ${JSON.stringify(kind)}; expected one of ${KINDS.join(', ')}${hint}`,
      ),
    );
    return { entries: [], diagnostics };
  }
  if ((kind === 'project') !== options.projectFile) {
    const message = options.projectFile
      ? `agentctl.yaml holds the project only (kind: project), not kind: ${kind}; put it in a file matched by \`include\``
      : 'kind: project belongs in agentctl.yaml at the project root';
    diagnostics.push(diagnostic(file, locate(positions, ['kind']), 'project-file', message));
    return { entries: [], diagnostics };
  }
  const validate = kindValidator(kind as Kind);
  const valid = validate(record) === true;
  if (!valid) diagnostics.push(...schemaDiagnostics(parsed, validate.errors ?? [], kind));
  const entries: IndexedEntry[] = [];
  if (kind === 'project') {
    entries.push({
      ...entryFor(parsed, 'project', record, [], valid),
      name: String(record.name ?? 'project'),
    });
  } else if (typeof record.name === 'string') {
    entries.push(entryFor(parsed, kind as Kind, record, [], valid));
    if (kind === 'agent' && valid) inlineAgents(parsed, record as unknown as AgentSpec, [], entries);
  }
  return { entries, diagnostics };
}

// A document with a name lacks only its kind; one without is likely some other tool's YAML.
function noKindHint(record: Record<string, unknown>): string {
  if ('name' in record) return ': add one above `name:`, such as `kind: agent`';
  return ": a YAML file that is not agentctl's belongs outside the included folders, or under `exclude:` in agentctl.yaml";
}
