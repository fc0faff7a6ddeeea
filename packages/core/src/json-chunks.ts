/** Which objects and arrays {@link jsonChunks} writes a member at a time. */
export type JsonSplit = (key: string | number, parentKey: string | number | undefined) => boolean;

/** How {@link jsonChunks} writes: `space` as `JSON.stringify`'s (0 or 2), `split` the long parts. */
export interface JsonChunksOptions {
  /** Indentation, as the third argument of `JSON.stringify` (0: compact). */
  space?: number;
  /**
   * Asked of each object or array inside one written a member at a time (the top one always is):
   * true writes this one a member at a time too, false stringifies it whole.
   */
  split: JsonSplit;
}

// About a megabyte per chunk: a write per event would cost a system call (or a stream chunk) each.
const CHUNK = 1 << 20;

/**
 * The text of `JSON.stringify(value, null, space)`, in chunks of about a megabyte: the parts
 * `split` names are written a member at a time, each member stringified on its own, so a value of
 * any size is written (one string of it all stops at V8's longest string, 512 MB) and never held
 * whole in memory.
 *
 * @example
 * for (const chunk of jsonChunks(session, { split: (key) => key === 'events' })) out.write(chunk);
 */
export function* jsonChunks(value: unknown, options: JsonChunksOptions): Generator<string> {
  const writer = new PieceWriter(options.space ?? 0, options.split);
  const top = writer.pieces(value, undefined, '');
  if (top === undefined || typeof top === 'string') {
    if (top) yield top;
    return;
  }
  let chunk = '';
  for (const piece of top) {
    chunk += piece;
    if (chunk.length < CHUNK) continue;
    yield chunk;
    chunk = '';
  }
  if (chunk !== '') yield chunk;
}

/** Pieces of one value: a generator walking it, or its whole text (undefined when JSON leaves it out). */
type Pieces = Iterable<string> | string | undefined;

class PieceWriter {
  readonly #gap: string;
  readonly #colon: string;
  readonly #space: number;
  readonly #split: JsonSplit;

  constructor(space: number, split: JsonSplit) {
    this.#space = space;
    this.#gap = ' '.repeat(space);
    this.#colon = space > 0 ? ': ' : ':';
    this.#split = split;
  }

  // `key` of undefined: the top value, always split when it is an object or array.
  pieces(
    value: unknown,
    key: string | number | undefined,
    indent: string,
    parentKey?: string | number,
  ): Pieces {
    const container =
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { toJSON?: unknown }).toJSON !== 'function';
    if (!container || (key !== undefined && !this.#split(key, parentKey))) return this.#whole(value, indent);
    return Array.isArray(value) ? this.#array(value, key, indent) : this.#object(value, key, indent);
  }

  *#object(object: object, key: string | number | undefined, indent: string): Generator<string> {
    const inner = indent + this.#gap;
    const open = this.#space > 0 ? `\n${inner}` : '';
    let first = true;
    for (const [name, member] of Object.entries(object)) {
      const pieces = this.pieces(member, name, inner, key);
      // As JSON.stringify does: a key whose value JSON cannot hold (undefined, a function) is left out.
      if (pieces === undefined) continue;
      yield `${first ? '{' : ','}${open}${JSON.stringify(name)}${this.#colon}`;
      first = false;
      if (typeof pieces === 'string') yield pieces;
      else yield* pieces;
    }
    yield first ? '{}' : `${this.#space > 0 ? `\n${indent}` : ''}}`;
  }

  *#array(items: readonly unknown[], key: string | number | undefined, indent: string): Generator<string> {
    if (items.length === 0) {
      yield '[]';
      return;
    }
    const inner = indent + this.#gap;
    const open = this.#space > 0 ? `\n${inner}` : '';
    for (let i = 0; i < items.length; i++) {
      yield `${i === 0 ? '[' : ','}${open}`;
      // As JSON.stringify does: an item JSON cannot hold is written as null.
      const pieces = this.pieces(items[i], i, inner, key) ?? 'null';
      if (typeof pieces === 'string') yield pieces;
      else yield* pieces;
    }
    yield `${this.#space > 0 ? `\n${indent}` : ''}]`;
  }

  // JSON escapes a newline inside a string, so every newline of the text is layout, indented here.
  #whole(value: unknown, indent: string): string | undefined {
    const text = JSON.stringify(value, null, this.#space) as string | undefined;
    return text === undefined || indent === '' ? text : text.replaceAll('\n', `\n${indent}`);
  }
}
