/** `max_tokens_field` -> `maxTokensField`; other spellings are left as they are. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A copy of an object with its own keys (not nested ones) camelCased. */
export function camelKeys(value: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value ?? {})) out[camelCase(key)] = item;
  return out;
}
