// Ids are cut from a pool of random hex digits, 8,192 of them made at once. A cut of 13 characters
// or more is a slice of the pool string in V8 (one small object, no copy), so an id costs a few
// nanoseconds. A pool string lives as long as an id cut from it does: the ids of spans made at about
// the same time share one. The digits come from xorshift128 seeded by Math.random for each pool, as
// the SDK's own ids come from Math.random: ids must be unique, not secret, and the crypto source or
// a Math.random call per word costs more than the rest of a span.
const POOL_CHARS = 8192;
const ascii = new Uint8Array(POOL_CHARS);
const asciiBuffer = Buffer.from(ascii.buffer);
const HEX = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
let pool = '';
let at = 0;

function seed(): number {
  return (Math.random() * 0x100000000) >>> 0;
}

function refill(): void {
  let x = seed();
  let y = seed();
  let z = seed();
  let w = seed();
  for (let i = 0; i < POOL_CHARS; i += 8) {
    const t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = (w ^ (w >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    ascii[i] = HEX[w >>> 28] as number;
    ascii[i + 1] = HEX[(w >>> 24) & 15] as number;
    ascii[i + 2] = HEX[(w >>> 20) & 15] as number;
    ascii[i + 3] = HEX[(w >>> 16) & 15] as number;
    ascii[i + 4] = HEX[(w >>> 12) & 15] as number;
    ascii[i + 5] = HEX[(w >>> 8) & 15] as number;
    ascii[i + 6] = HEX[(w >>> 4) & 15] as number;
    ascii[i + 7] = HEX[w & 15] as number;
  }
  pool = asciiBuffer.toString('latin1');
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
