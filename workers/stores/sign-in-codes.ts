import type { Database } from "./db";

/** Stores the address's one live code (replacing an earlier one, attempts back to 0). */
export async function putSignInCode(
  db: Database,
  email: string,
  codeHmac: string,
  expiresAt: Date,
): Promise<void> {
  await db.sql().query(
    `INSERT INTO sign_in_codes (email, code_hmac, attempts, created_at, expires_at) VALUES ($1, $2, 0, now(), $3)
     ON CONFLICT (email) DO UPDATE SET code_hmac = EXCLUDED.code_hmac, attempts = 0, created_at = now(),
       expires_at = EXCLUDED.expires_at`,
    [email, codeHmac, expiresAt.toISOString()],
  );
}

/**
 * Counts one try against the address's live code, atomically (parallel tries cannot get more than their
 * share): the try's number and the stored HMAC, or null when there is no unexpired code.
 */
export async function countCodeTry(
  db: Database,
  email: string,
): Promise<{ attempt: number; codeHmac: string } | null> {
  const rows = (await db.sql().query(
    `UPDATE sign_in_codes SET attempts = attempts + 1 WHERE email = $1 AND expires_at > now()
     RETURNING attempts, code_hmac`,
    [email],
  )) as Record<string, unknown>[];
  const r = rows[0];
  return r ? { attempt: Number(r.attempts), codeHmac: String(r.code_hmac) } : null;
}

/** Uses the code up (single use): true for exactly one caller. */
export async function consumeSignInCode(db: Database, email: string, codeHmac: string): Promise<boolean> {
  const rows = (await db
    .sql()
    .query(
      "DELETE FROM sign_in_codes WHERE email = $1 AND code_hmac = $2 AND expires_at > now() RETURNING email",
      [email, codeHmac],
    )) as unknown[];
  return rows.length === 1;
}
