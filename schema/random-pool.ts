/**
 * A uniform number in [0, 1) from the platform's CSPRNG, one byte's worth (k / 256): the generator a ULID's
 * random part takes (`ulid`'s own default draws one byte the same way, but makes a `getRandomValues` call per
 * character, 16 per id). Bytes come from a pool refilled 4 KiB at a time, so an id costs one call per 256.
 */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let next = 0;

export function pooledRandom(): number {
  if (next >= pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    next = 0;
  }
  return (pool[next++] as number) / 256;
}
