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

/** One live code of an address: how many tries the asking client network made at it, and all networks. */
export interface CodeTries {
  codeHmac: string;
  tries: number;
  /** Tries at the code from every network, this one included. */
  allTries: number;
}

/**
 * Counts one try from `network` against every unexpired code of the address, atomically (parallel tries
 * cannot get more than their share): the code's own count of every network's tries (its row locked while it
 * moves) and the network's count. Each code's stored HMAC with both counts, this try included. Empty when the
 * address has no live code.
 */
export async function countCodeTry(db: Database, email: string, network: string): Promise<CodeTries[]> {
  const rows = (await db.sql().query(
    `WITH code AS (
       UPDATE sign_in_codes SET tries = tries + 1 WHERE email = $1 AND expires_at > now()
       RETURNING email, code_hmac, tries
     ), net AS (
       INSERT INTO sign_in_code_tries (email, code_hmac, network, tries)
       SELECT email, code_hmac, $2, 1 FROM code
       ON CONFLICT (email, code_hmac, network) DO UPDATE SET tries = sign_in_code_tries.tries + 1
       RETURNING code_hmac, tries
     )
     SELECT net.code_hmac, net.tries, code.tries AS all_tries FROM net JOIN code USING (code_hmac)`,
    [email, network],
  )) as Record<string, unknown>[];
  return rows.map((r) => ({
    codeHmac: String(r.code_hmac),
    tries: Number(r.tries),
    allTries: Number(r.all_tries),
  }));
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
