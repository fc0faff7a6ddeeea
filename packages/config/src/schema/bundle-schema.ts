/**
 * Makes one self-contained schema document: every schema file the root refers to is embedded under
 * `$defs` with its own `$id`, which draft 2020-12 resolves in place, so the refs stay as written and
 * the output works when saved anywhere.
 */
export function bundleSchema(root: object, load: (file: string) => object): object {
  const bundled = structuredClone(root) as Record<string, unknown> & {
    $id?: string;
    $defs?: Record<string, unknown>;
  };
  const included = new Set<string>([String(bundled.$id ?? '')]);
  const pending: unknown[] = [bundled];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const file = value.split('#')[0];
        // An absolute URI (the JSON Schema meta-schema) is left for the validator to know.
        if (file && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(file) && !included.has(file)) {
          included.add(file);
          const embedded = structuredClone(load(file.replace(/\.schema\.json$/, ''))) as Record<
            string,
            unknown
          >;
          delete embedded.$schema;
          bundled.$defs = { ...(bundled.$defs ?? {}), [file]: embedded };
          pending.push(embedded);
        }
      } else {
        pending.push(value);
      }
    }
  }
  return bundled;
}
