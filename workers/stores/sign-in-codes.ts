import type { Database } from "./db";

/** Stores one more live code of the address (the codes already sent stay valid). */
export async function putSignInCode(
  db: Database,
  email: string,
  codeHmac: string,
  expiresAt: Date,
): Promise<void> {
  await db.sql().query(
    `INSERT INTO sign_in_codes (email, code_hmac, created_at, expires_at) VALUES ($1, $2, now(), $3)
     ON CONFLICT (email, code_hmac) DO UPDATE SET created_at = now(), expires_at = EXCLUDED.expires_at`,
    [email, codeHmac, expiresAt.toISOString()],
  );
}

/** One live code of an address and how many tries the asking client network has made against it. */
export interface CodeTries {
  codeHmac: string;
  tries: number;
}

/**
 * Counts one try from `network` against every unexpired code of the address, atomically (parallel tries
 * cannot get more than their share): each code's stored HMAC with that network's tries, this one included.
 * Empty when the address has no live code.
 */
export async function countCodeTry(db: Database, email: string, network: string): Promise<CodeTries[]> {
  const rows = (await db.sql().query(
    `INSERT INTO sign_in_code_tries (email, code_hmac, network, tries)
     SELECT email, code_hmac, $2, 1 FROM sign_in_codes WHERE email = $1 AND expires_at > now() FOR KEY SHARE
     ON CONFLICT (email, code_hmac, network) DO UPDATE SET tries = sign_in_code_tries.tries + 1
     RETURNING code_hmac, tries`,
    [email, network],
  )) as Record<string, unknown>[];
  return rows.map((r) => ({ codeHmac: String(r.code_hmac), tries: Number(r.tries) }));
}

/** Uses the code up (single use): true for exactly one caller. Its tries go with it. */
export async function consumeSignInCode(db: Database, email: string, codeHmac: string): Promise<boolean> {
  const rows = (await db
    .sql()
    .query(
      "DELETE FROM sign_in_codes WHERE email = $1 AND code_hmac = $2 AND expires_at > now() RETURNING email",
      [email, codeHmac],
    )) as unknown[];
  return rows.length === 1;
}

/** Removes codes past their expiry, with their tries (scheduled job); the number removed. */
export async function deleteExpiredSignInCodes(db: Database): Promise<number> {
  const rows = (await db
    .sql()
    .query("DELETE FROM sign_in_codes WHERE expires_at <= now() RETURNING 1")) as unknown[];
  return rows.length;
}
