import { randomFillSync } from 'node:crypto';

// Random bytes drawn a block at a time (one system call per 512 span ids), turned into hex through
// a table: Buffer's own hex conversion costs more than the rest of a span id.
const POOL = Buffer.allocUnsafe(4096);
const HEX = Array.from({ length: 256 }, (_, byte) => (byte + 256).toString(16).slice(1));
let at = POOL.length;

function randomHex8(): string {
  if (at + 8 > POOL.length) {
    randomFillSync(POOL);
    at = 0;
  }
  const p = POOL;
  const i = at;
  at += 8;
  return (
    HEX[p[i]] + HEX[p[i + 1]] + HEX[p[i + 2]] + HEX[p[i + 3]] + HEX[p[i + 4]] + HEX[p[i + 5]] + HEX[p[i + 6]] + HEX[p[i + 7]]
  );
}

const ZERO = '0000000000000000';

/** A random 8-byte span id as 16 lowercase hex digits, never all zeros (W3C Trace Context). */
export function newSpanId(): string {
  const id = randomHex8();
  return id === ZERO ? newSpanId() : id;
}

/** A random 16-byte trace id as 32 lowercase hex digits, never all zeros. */
export function newTraceId(): string {
  const id = randomHex8() + randomHex8();
  return id === ZERO + ZERO ? newTraceId() : id;
}
