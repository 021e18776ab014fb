/**
 * API key format (spec: Authentication → API keys): `svc_(live|test)_` + 34 random base62 characters +
 * a 6-character base62 CRC-32 checksum over the mode prefix and the random part.
 */
import { constantTimeEqual } from "./constant-time";
import { sha256Hex } from "./hex";

/** Key mode: live keys are billed, test keys are not. */
export type KeyMode = "live" | "test";

/** Base62 alphabet; digit values 0..61 in this order. */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Shape of a key: mode, 34 random characters, 6 checksum characters. */
export const API_KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{34})([0-9A-Za-z]{6})$/;

const RANDOM_LENGTH = 34;
const CHECKSUM_LENGTH = 6;
/** Characters of the random part shown in the display prefix. */
const PREFIX_RANDOM_CHARS = 4;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, zlib) of bytes, as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Unsigned integer in base62, most significant digit first, left-padded with `0` to `width`. */
export function toBase62(value: number, width: number): string {
  let out = "";
  let v = value;
  do {
    out = BASE62_ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  } while (v > 0);
  return out.padStart(width, "0");
}

/** The 6-character checksum of a key body (`svc_live_` + 34 random characters). */
export function keyChecksum(modePrefixAndRandom: string): string {
  return toBase62(crc32(new TextEncoder().encode(modePrefixAndRandom)), CHECKSUM_LENGTH);
}

/** `count` uniformly random base62 characters (rejection sampling: bytes >= 248 are discarded). */
function randomBase62(count: number): string {
  let out = "";
  const buf = new Uint8Array(64);
  while (out.length < count) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      if (b >= 248) continue; // 248 = 4 * 62: keeps the modulo unbiased
      out += BASE62_ALPHABET[b % 62];
      if (out.length === count) break;
    }
  }
  return out;
}

/** SHA-256 hex of a key's whole secret: the only form the service stores. */
export function hashApiKey(secret: string): Promise<string> {
  return sha256Hex(secret);
}

/** A new key: the secret (shown once), its SHA-256 hex and its display prefix (e.g. `svc_live_AbCd`). */
export async function generateApiKey(
  mode: KeyMode,
): Promise<{ secret: string; hash: string; prefix: string }> {
  const modePrefix = `svc_${mode}_`;
  const random = randomBase62(RANDOM_LENGTH);
  const secret = modePrefix + random + keyChecksum(modePrefix + random);
  return {
    secret,
    hash: await hashApiKey(secret),
    prefix: modePrefix + random.slice(0, PREFIX_RANDOM_CHARS),
  };
}

/** The key's mode when its shape and checksum are right, else null. Touches no storage. */
export function checkKeyShape(secret: string): { mode: KeyMode } | null {
  const m = API_KEY_PATTERN.exec(secret);
  if (!m) return null;
  const mode = m[1] as KeyMode;
  const expected = keyChecksum(`svc_${mode}_${m[2]}`);
  return constantTimeEqual(expected, m[3]!) ? { mode } : null;
}
