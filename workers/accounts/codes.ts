import { hmacHex } from "./secrets";

/** Digits of an e-mailed sign-in code. */
export const CODE_DIGITS = 8;
/** How long a code is valid. */
export const CODE_TTL_MS = 10 * 60_000;
/** Wrong tries from one client network after which a code is unusable there (the 5th still answers `invalid_code`). */
export const MAX_CODE_ATTEMPTS = 5;
/**
 * Tries at one code from all networks together after which it is dead for everyone (issue 50 item 4): an
 * attacker with many networks gets 10 guesses at a code, not 5 per network; the owner asks for a new one.
 */
export const MAX_CODE_TRIES_ALL_NETWORKS = 10;

const LIMIT = 10 ** CODE_DIGITS;
// The largest multiple of 10^8 below 2^32: values at or above it are drawn again, so every code is equally likely.
const ACCEPT_BELOW = Math.floor(2 ** 32 / LIMIT) * LIMIT;

/** A uniformly random code of `CODE_DIGITS` digits from `crypto.getRandomValues`, by rejection sampling. */
export function generateCode(
  random: (buf: Uint32Array) => Uint32Array = (b) => crypto.getRandomValues(b),
): string {
  const buf = new Uint32Array(1);
  for (;;) {
    const v = random(buf)[0]!;
    if (v < ACCEPT_BELOW) return String(v % LIMIT).padStart(CODE_DIGITS, "0");
  }
}

/** The stored form of a code: HMAC keyed with the console secret over the address and the code. */
export function codeHmac(secret: string, email: string, code: string): Promise<string> {
  return hmacHex(secret, `sign-in-code\n${email}\n${code}`);
}

/** True when `code` looks like a code (so obviously wrong input is still counted as a try, never echoed). */
export const CODE_PATTERN = new RegExp(`^[0-9]{${CODE_DIGITS}}$`);
