import type { BatchEventType } from "../../schema/batches";
import { ACTIVE_BATCH, type BatchRow, RESULTS_RETENTION, STORED_BATCH, toBatch } from "./batch-rows";
import { asRows, type Database, isoTime } from "./db";

/** Per account: batches queued, running or paused at once, and bytes of uploads kept. */
export interface BatchCaps {
  active: number;
  bytes: number;
}

/** Which cap refused a new batch: the account's active batches, or its stored bytes. */
export type BatchCapRefusal = "batches_in_progress" | "batch_storage_full";

/** A batch to insert (times in ms since epoch). */
export interface NewBatch {
  id: string;
  accountId: string;
  keyId: string;
  mode: "live" | "test";
  model: string | null;
  chunkLines: number[];
  total: number;
  bytes: number;
  idempotencyKey: string | null;
  bodySha256: string;
  createdAt: number;
  expiresAt: number;
}

/** How many of the account's batches are queued, running or paused. */
export async function activeBatchCount(db: Database, accountId: string): Promise<number> {
  const r = asRows(
    await db
      .sql()
      .query(`SELECT count(*) AS n FROM batches WHERE account_id = $1 AND ${ACTIVE_BATCH}`, [accountId]),
  );
  return Number(r[0]?.n ?? 0);
}

/**
 * Inserts the batch (queued) while the account stays within `caps` (under a per-account advisory lock, so
 * parallel uploads cannot pass a cap together). An idempotency key already used by the account answers the
 * batch it created instead (`{ existing }`), inserting nothing.
 */
export async function insertBatch(
  db: Database,
  b: NewBatch,
  caps: BatchCaps,
): Promise<BatchRow | BatchCapRefusal | { existing: BatchRow }> {
  const sql = db.sql();
  const [, existing, inserted, used] = await sql.transaction([
    sql.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 42))", [`batches:${b.accountId}`]),
    sql.query("SELECT * FROM batches WHERE account_id = $1 AND idempotency_key = $2", [
      b.accountId,
      b.idempotencyKey,
    ]),
    sql.query(
      `INSERT INTO batches (id, account_id, key_id, mode, model, status, total, chunks, chunk_lines, bytes,
                            idempotency_key, body_sha256, expires_at, created_at, updated_at)
       SELECT $1, $2, $3, $4, $5, 'queued', $6, $7, $8::int[], $9::bigint, $10, $11, $12, $15, $15
        WHERE NOT EXISTS (SELECT 1 FROM batches WHERE account_id = $2 AND idempotency_key = $10)
          AND (SELECT count(*) FROM batches WHERE account_id = $2 AND ${ACTIVE_BATCH}) < $13
          AND (SELECT coalesce(sum(bytes), 0) FROM batches WHERE account_id = $2 AND ${STORED_BATCH})
              + $9::bigint <= $14::bigint
       RETURNING *`,
      [
        b.id,
        b.accountId,
        b.keyId,
        b.mode,
        b.model,
        b.total,
        b.chunkLines.length,
        b.chunkLines,
        b.bytes,
        b.idempotencyKey,
        b.bodySha256,
        isoTime(b.expiresAt),
        caps.active,
        caps.bytes,
        isoTime(b.createdAt),
      ],
    ),
    sql.query(`SELECT count(*) AS n FROM batches WHERE account_id = $1 AND ${ACTIVE_BATCH}`, [b.accountId]),
  ]);
  const prior = asRows(existing)[0];
  if (prior) return { existing: toBatch(prior) };
  const row = asRows(inserted)[0];
  if (row) return toBatch(row);
  return Number(asRows(used)[0]?.n ?? 0) >= caps.active ? "batches_in_progress" : "batch_storage_full";
}

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
      .query("SELECT * FROM batches WHERE id = $1 AND account_id = $2 AND ($3::text IS NULL OR mode = $3)", [
        id,
        accountId,
        mode,
      ]),
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
          AND ($4::text IS NULL OR mode = $4)
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
                        AND NOT ${ACTIVE_BATCH.replace("status", "b.status")})
       ON CONFLICT (request_id) DO NOTHING`,
      [id, accountId],
    ),
    sql.query(`DELETE FROM batches WHERE id = $1 AND account_id = $2 AND NOT ${ACTIVE_BATCH} RETURNING id`, [
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
