import type { Database } from "./db";

/** One logged decide call of an account that opted in. */
export interface ContentLogEntry {
  requestId: string;
  accountId: string;
  keyId: string | null;
  /** The request body and the Decision, as JSON text. */
  request: string;
  decision: string;
  retentionDays: number;
}

/** Stores the entry until its retention ends (a repeated request id is a no-op). */
export async function insertContentLog(db: Database, e: ContentLogEntry): Promise<void> {
  await db.sql().query(
    `INSERT INTO content_logs (request_id, account_id, key_id, request, decision, delete_after)
     VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, now() + make_interval(days => $6))
     ON CONFLICT (request_id) DO NOTHING`,
    [e.requestId, e.accountId, e.keyId, e.request, e.decision, e.retentionDays],
  );
}

/** Deletes every entry whose retention has ended; the number deleted. */
export async function deleteExpiredContentLogs(db: Database): Promise<number> {
  const rows = (await db
    .sql()
    .query("DELETE FROM content_logs WHERE delete_after <= now() RETURNING 1")) as unknown[];
  return rows.length;
}

/** Deletes all of an account's entries (content logging turned off). */
export async function deleteAccountContentLogs(db: Database, accountId: string): Promise<void> {
  await db.sql().query("DELETE FROM content_logs WHERE account_id = $1", [accountId]);
}
