/** `max_tokens_field` -> `maxTokensField`; other spellings are left as they are. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
