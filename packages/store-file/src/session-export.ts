import { InvalidExportError } from './errors.js';
import { checkShape, type StoredSession } from './stored-session.js';

/** A session and its child sessions as one JSON document, for `export` and `import`. */
export interface SessionExport {
  format: 'agentctl-session';
  version: 1;
  session: StoredSession;
  children: SessionExport[];
}

/** Checks that `data` is a {@link SessionExport}; throws an error naming the offending part when not. */
export function assertSessionExport(data: unknown, where = 'export'): asserts data is SessionExport {
  if (typeof data !== 'object' || data === null) throw new InvalidExportError(`${where}: not a JSON object`);
  const value = data as Partial<SessionExport>;
  if (value.format !== 'agentctl-session')
    throw new InvalidExportError(`${where}: "format" must be "agentctl-session"`);
  if (value.version !== 1)
    throw new InvalidExportError(`${where}: unsupported version ${JSON.stringify(value.version)}`);
  const problem = checkShape(value.session);
  if (problem) throw new InvalidExportError(`${where}: session: ${problem}`);
  if (!Array.isArray(value.children)) throw new InvalidExportError(`${where}: "children" must be a list`);
  value.children.forEach((child, i) => {
    assertSessionExport(child, `${where}.children[${i}]`);
    if (child.session.parentId !== value.session?.id) {
      throw new InvalidExportError(`${where}.children[${i}]: parentId does not match ${value.session?.id}`);
    }
  });
}

/** Every session of an export, parents before children. */
export function flattenExport(data: SessionExport): StoredSession[] {
  return [data.session, ...data.children.flatMap(flattenExport)];
}
