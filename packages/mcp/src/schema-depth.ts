/**
 * How deeply `value` nests objects and arrays (a scalar is 0), counted without recursion, and
 * no further than `limit + 1`: a server's schema can be nested deeper than a call stack.
 *
 * @example
 * schemaDepth({ type: 'object', properties: { a: { type: 'string' } } }, 64); // 3
 */
export function schemaDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (inner > limit) return inner;
    for (const child of Object.values(item)) stack.push([child, inner]);
  }
  return deepest;
}
