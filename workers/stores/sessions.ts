import type { Database } from "./db";

/** How a session was made: a browser cookie (CSRF needed) or an app session (bearer, no CSRF). */
export type SessionKind = "cookie" | "app";

/** A live session after a use slid its expiry. */
export interface SessionRow {
  tokenSha256: string;
  accountId: string;
  kind: SessionKind;
  expiresAt: number;
  accountStatus: "active" | "suspended";
  email: string | null;
}

/** Stores a new session by its token's SHA-256. */
export async function insertSession(
  db: Database,
  tokenSha256: string,
  accountId: string,
  kind: SessionKind,
  expiresAt: Date,
): Promise<void> {
  await db
    .sql()
    .query(
      "INSERT INTO console_sessions (token_sha256, account_id, kind, expires_at) VALUES ($1, $2, $3, $4)",
      [tokenSha256, accountId, kind, expiresAt.toISOString()],
    );
}

/**
 * Uses a session: when unexpired and younger than `absoluteMs`, its expiry moves to `ttlMs` from now, never
 * past `absoluteMs` after its creation; with the account's status (joined).
 */
export async function touchSession(
  db: Database,
  tokenSha256: string,
  ttlMs: number,
  absoluteMs: number,
): Promise<SessionRow | null> {
  const rows = (await db.sql().query(
    `UPDATE console_sessions s
        SET expires_at = LEAST(now() + make_interval(secs => $2::double precision / 1000),
                               s.created_at + make_interval(secs => $3::double precision / 1000))
       FROM accounts a
      WHERE s.token_sha256 = $1 AND s.expires_at > now()
        AND s.created_at > now() - make_interval(secs => $3::double precision / 1000) AND a.id = s.account_id
      RETURNING s.token_sha256, s.account_id, s.kind, s.expires_at, a.status, a.email`,
    [tokenSha256, ttlMs, absoluteMs],
  )) as Record<string, unknown>[];
  const r = rows[0];
  if (!r) return null;
  return {
    tokenSha256: String(r.token_sha256),
    accountId: String(r.account_id),
    kind: r.kind === "app" ? "app" : "cookie",
    expiresAt: new Date(String(r.expires_at)).getTime(),
    accountStatus: r.status === "suspended" ? "suspended" : "active",
    email: r.email === null || r.email === undefined ? null : String(r.email),
  };
}

/** Ends a session (sign-out). */
export async function deleteSession(db: Database, tokenSha256: string): Promise<void> {
  await db.sql().query("DELETE FROM console_sessions WHERE token_sha256 = $1", [tokenSha256]);
}

/** Removes sessions past their expiry (scheduled job). */
export async function deleteExpiredSessions(db: Database): Promise<number> {
  const rows = (await db
    .sql()
    .query("DELETE FROM console_sessions WHERE expires_at <= now() RETURNING 1")) as unknown[];
  return rows.length;
}
