// Ids are cut from a pool: the hex digits of 4 KiB of random bytes, converted in one call. A cut of
// 13 characters or more is a slice of the pool string in V8 (one small object, no copy), so an id
// costs a few nanoseconds where converting each id alone costs ten times more. A pool string lives
// as long as an id cut from it does: the ids of spans made at about the same time share one. The
// bytes come from Math.random, as the SDK's own ids do: ids must be unique, not secret, and the
// crypto source costs more than the rest of a span.
const POOL_WORDS = 1024;
const words = new Uint32Array(POOL_WORDS);
const bytes = Buffer.from(words.buffer);
let pool = '';
let at = 0;

function refill(): void {
  for (let i = 0; i < POOL_WORDS; i++) words[i] = Math.random() * 0x100000000;
  pool = bytes.toString('hex');
  at = 0;
}

/** Draws `length` random hex digits from the pool. */
function randomHex(length: number): string {
  if (at + length > pool.length) refill();
  const id = pool.slice(at, at + length);
  at += length;
  return id;
}

const ZERO_SPAN = '0'.repeat(16);
const ZERO_TRACE = '0'.repeat(32);
const ZERO = 48;

/** A random 8-byte span id as 16 lowercase hex digits, never all zeros (W3C Trace Context). */
export function newSpanId(): string {
  let id = randomHex(16);
  // Compared in full only when it starts with a zero: two different strings compare char by char.
  while (id.charCodeAt(0) === ZERO && id === ZERO_SPAN) id = randomHex(16);
  return id;
}

/** A random 16-byte trace id as 32 lowercase hex digits, never all zeros. */
export function newTraceId(): string {
  let id = randomHex(32);
  while (id.charCodeAt(0) === ZERO && id === ZERO_TRACE) id = randomHex(32);
  return id;
}
