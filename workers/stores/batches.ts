import type { BatchEventType } from "../../schema/batches";
import {
  ACTIVE_BATCH,
  type BatchRow,
  FINISHED_BATCH,
  RESULTS_RETENTION,
  SHOWN_BATCH,
  toBatch,
} from "./batch-rows";
import { asRows, type Database } from "./db";

/** The batch an idempotency key created (null: none). */
export async function findBatchByIdempotencyKey(
  db: Database,
  accountId: string,
  key: string,
): Promise<BatchRow | null> {
  const r = asRows(
    await db
      .sql()
      .query("SELECT * FROM batches WHERE account_id = $1 AND idempotency_key = $2", [accountId, key]),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/** Which of the account's batches a caller sees: one mode's (an API key's), or both (null: the console). */
export type BatchModeScope = "live" | "test" | null;

/** One batch of the account in `mode` (null: none, another account's or mode's, or deleted). */
export async function findBatch(
  db: Database,
  accountId: string,
  id: string,
  mode: BatchModeScope = null,
): Promise<BatchRow | null> {
  const r = asRows(
    await db
      .sql()
      .query(
        `SELECT * FROM batches WHERE id = $1 AND account_id = $2 AND ($3::text IS NULL OR mode = $3) AND ${SHOWN_BATCH}`,
        [id, accountId, mode],
      ),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/** The account's batches in `mode`, newest first, after `startingAfter`; one more than `limit` tells `has_more`. */
export async function listBatches(
  db: Database,
  accountId: string,
  limit: number,
  startingAfter: string | null,
  mode: BatchModeScope = null,
): Promise<{ data: BatchRow[]; hasMore: boolean }> {
  const r = asRows(
    await db.sql().query(
      `SELECT * FROM batches WHERE account_id = $1 AND ($2::text IS NULL OR id < $2)
          AND ($4::text IS NULL OR mode = $4) AND ${SHOWN_BATCH}
        ORDER BY id DESC LIMIT $3`,
      [accountId, startingAfter, limit + 1, mode],
    ),
  );
  return { data: r.slice(0, limit).map(toBatch), hasMore: r.length > limit };
}

/**
 * Moves an active batch to a finished status, with `finished_at`, `results_expire_at` and, when the account has a
 * webhook endpoint, the event to deliver, in one statement. A batch already finished is left as it is (null).
 */
export async function finishBatch(
  db: Database,
  id: string,
  status: "completed" | "cancelled" | "expired" | "failed",
  eventId: string,
  failure: { code: string; message: string } | null = null,
): Promise<BatchRow | null> {
  const type: BatchEventType = `batch.${status}`;
  const r = asRows(
    await db.sql().query(
      `WITH b AS (
         UPDATE batches SET status = $2, paused_reason = NULL, resumes_at = NULL, finished_at = now(),
                results_expire_at = now() + ${RESULTS_RETENTION}, failure_code = $4, failure_message = $5, updated_at = now()
          WHERE id = $1 AND ${ACTIVE_BATCH}
            AND ($2 <> 'completed' OR chunks_written = chunks)
          RETURNING *),
       ev AS (
         INSERT INTO webhook_deliveries (id, account_id, batch_id, type)
         SELECT $3, b.account_id, b.id, $6 FROM b
          WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.account_id = b.account_id))
       SELECT * FROM b`,
      [id, status, eventId, failure?.code ?? null, failure?.message ?? null, type],
    ),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/**
 * Deletes a finished batch with its lines and pending events (its R2 objects are the caller's). A live batch's
 * unsettled attempts (an unfinished line's, and any owed) become the ledger's refund intents in the same
 * transaction (issue 50: no debit is kept without a result once its line is gone); refunding one that was never
 * debited is a no-op. False: nothing was deleted.
 */
export async function deleteFinishedBatch(db: Database, accountId: string, id: string): Promise<boolean> {
  const sql = db.sql();
  const [, deleted] = await sql.transaction([
    sql.query(
      `INSERT INTO ledger_refund_intents (request_id, account_id)
       SELECT DISTINCT o, $2 FROM batch_lines l,
              unnest(l.owed || CASE WHEN l.status IS NULL AND l.attempt IS NOT NULL THEN ARRAY[l.attempt]
                                    ELSE '{}'::text[] END) AS o
        WHERE l.batch_id = $1
          AND EXISTS (SELECT 1 FROM batches b WHERE b.id = $1 AND b.account_id = $2 AND b.mode = 'live'
                        AND b.${FINISHED_BATCH})
       ON CONFLICT (request_id) DO NOTHING`,
      [id, accountId],
    ),
    sql.query(`DELETE FROM batches WHERE id = $1 AND account_id = $2 AND ${FINISHED_BATCH} RETURNING id`, [
      id,
      accountId,
    ]),
    sql.query("DELETE FROM webhook_deliveries WHERE batch_id = $1 AND delivered_at IS NULL", [id]),
  ]);
  return asRows(deleted).length > 0;
}

/** Cancels a queued, running or paused batch (lines in flight still finish and are billed). */
export async function cancelBatch(db: Database, id: string, eventId: string): Promise<BatchRow | null> {
  return finishBatch(db, id, "cancelled", eventId);
}
