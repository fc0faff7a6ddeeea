// The module hooks of record-loads.mjs: each ES module resolved is written to the log.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, `esm ${resolved.url}\n`);
  return resolved;
}
