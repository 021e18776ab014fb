import { ACTIVE_BATCH, type BatchRow, FINISHED_BATCH, type PausedReason, toBatch } from "./batch-rows";
import { asRows, type Database, isoTime } from "./db";

/**
 * The batch the account's runner works on next: the running one, else the oldest that is queued or paused and due,
 * else the paused one due soonest (the runner waits for it).
 */
export async function nextRunnableBatch(db: Database, accountId: string): Promise<BatchRow | null> {
  const r = asRows(
    await db.sql().query(
      `SELECT * FROM batches WHERE account_id = $1 AND ${ACTIVE_BATCH}
        ORDER BY CASE WHEN status = 'running' THEN 0 WHEN status = 'paused' AND resumes_at > now() THEN 2 ELSE 1 END,
                 CASE WHEN status = 'paused' AND resumes_at > now() THEN resumes_at END, id
        LIMIT 1`,
      [accountId],
    ),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/** Status, counts and position of a batch, read between groups of lines (null: deleted). */
export async function batchProgress(db: Database, id: string): Promise<BatchRow | null> {
  const r = asRows(await db.sql().query("SELECT * FROM batches WHERE id = $1", [id]));
  return r[0] ? toBatch(r[0]) : null;
}

/** A queued batch, or a paused one that is due, starts (or resumes) running. */
export async function markBatchRunning(db: Database, id: string): Promise<void> {
  await db.sql().query(
    `UPDATE batches SET status = 'running', paused_reason = NULL, resumes_at = NULL,
            started_at = coalesce(started_at, now()), updated_at = now()
      WHERE id = $1
        AND (status = 'queued' OR (status = 'paused' AND (resumes_at IS NULL OR resumes_at <= now())))`,
    [id],
  );
}

/** A running batch waits until `resumesAt` for `reason`. */
export async function markBatchPaused(
  db: Database,
  id: string,
  reason: PausedReason,
  resumesAt: number,
): Promise<void> {
  await db.sql().query(
    `UPDATE batches SET status = 'paused', paused_reason = $2, resumes_at = $3, updated_at = now()
      WHERE id = $1 AND status IN ('running', 'paused')`,
    [id, reason, isoTime(resumesAt)],
  );
}

/** A top-up: the account's batches paused for their balance are due at once. */
export async function resumeBalancePaused(db: Database, accountId: string): Promise<number> {
  const r = asRows(
    await db.sql().query(
      `UPDATE batches SET resumes_at = now(), updated_at = now()
        WHERE account_id = $1 AND status = 'paused' AND paused_reason = 'insufficient_balance' RETURNING id`,
      [accountId],
    ),
  );
  return r.length;
}

/** Marks the run alive (`updated_at`), so a reader can tell a stalled run from a working one. */
export async function touchBatch(db: Database, id: string): Promise<void> {
  await db.sql().query("UPDATE batches SET updated_at = now() WHERE id = $1", [id]);
}

/**
 * Accounts with a batch queued, running or paused, a finished batch whose lapsed attempts are not settled yet, or an
 * event to deliver (the cron kicks their runners).
 */
export async function accountsWithBatchWork(db: Database): Promise<string[]> {
  const r = asRows(
    await db.sql().query(
      `SELECT DISTINCT account_id FROM batches WHERE ${ACTIVE_BATCH}
       UNION SELECT DISTINCT b.account_id FROM batch_lines l JOIN batches b ON b.id = l.batch_id
        WHERE (l.status IS NULL OR NOT l.usage_recorded)
          AND ((l.status IS NULL AND l.attempt IS NOT NULL) OR l.owed <> '{}')
          AND b.${FINISHED_BATCH}
       UNION SELECT DISTINCT account_id FROM webhook_deliveries WHERE delivered_at IS NULL AND given_up_at IS NULL`,
    ),
  );
  return r.map((x) => String(x.account_id));
}
