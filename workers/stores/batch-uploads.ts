import { type BatchRow, COUNTED_BATCH, STORED_BATCH, toBatch } from "./batch-rows";
import { asRows, type Database, isoTime } from "./db";

/** Per account: batches uploading, queued, running or paused at once, and bytes of uploads kept. */
export interface BatchCaps {
  active: number;
  bytes: number;
}

/** Which cap refused a new batch: the account's active batches, or its stored bytes. */
export type BatchCapRefusal = "batches_in_progress" | "batch_storage_full";

/** An upload about to stream: its row is written first (issue 50), `bytes` its declared length (0: unknown). */
export interface PendingBatch {
  id: string;
  accountId: string;
  keyId: string;
  mode: "live" | "test";
  bytes: number;
  createdAt: number;
  expiresAt: number;
}

/** What a finished upload stored, to complete its row with. */
export interface StoredBatch {
  model: string | null;
  chunkLines: number[];
  total: number;
  bytes: number;
  idempotencyKey: string | null;
  bodySha256: string;
}

/** The account's advisory lock for the rest of the transaction (the caps are counted under it). */
const lockSql = "SELECT pg_advisory_xact_lock(hashtextextended($1, 42))";
const lockKey = (accountId: string) => [`batches:${accountId}`];

/**
 * Writes an upload's `uploading` row before a byte of it is streamed, under the account's advisory lock and within
 * `caps` (its batches uploading, queued, running or paused; its kept bytes with the declared length), so parallel
 * uploads cannot pass a cap together and every object the upload writes has a row the caps and the sweep see.
 */
export async function insertPendingBatch(
  db: Database,
  b: PendingBatch,
  caps: BatchCaps,
): Promise<true | BatchCapRefusal> {
  const sql = db.sql();
  const [, inserted, used] = await sql.transaction([
    sql.query(lockSql, lockKey(b.accountId)),
    sql.query(
      `INSERT INTO batches (id, account_id, key_id, mode, status, total, chunks, chunk_lines, bytes, expires_at,
                            created_at, updated_at)
       SELECT $1, $2, $3, $4, 'uploading', 0, 0, '{}', $5::bigint, $6, $7, $7
        WHERE (SELECT count(*) FROM batches WHERE account_id = $2 AND ${COUNTED_BATCH}) < $8
          AND (SELECT coalesce(sum(bytes), 0) FROM batches WHERE account_id = $2 AND ${STORED_BATCH})
              + $5::bigint <= $9::bigint
       RETURNING id`,
      [
        b.id,
        b.accountId,
        b.keyId,
        b.mode,
        b.bytes,
        isoTime(b.expiresAt),
        isoTime(b.createdAt),
        caps.active,
        caps.bytes,
      ],
    ),
    sql.query(`SELECT count(*) AS n FROM batches WHERE account_id = $1 AND ${COUNTED_BATCH}`, [b.accountId]),
  ]);
  if (asRows(inserted).length > 0) return true;
  return Number(asRows(used)[0]?.n ?? 0) >= caps.active ? "batches_in_progress" : "batch_storage_full";
}

/** The upload is alive: it wrote another chunk (the sweep deletes an `uploading` row left untouched). */
export async function touchUpload(db: Database, id: string): Promise<void> {
  await db.sql().query("UPDATE batches SET updated_at = now() WHERE id = $1 AND status = 'uploading'", [id]);
}

/**
 * The upload finished: its row becomes the `queued` batch, under the account's lock, unless its idempotency key
 * was taken meanwhile (`{ existing }`) or its real size passes the kept-bytes cap. Null: the row is gone (the sweep
 * took an upload it thought dead).
 */
export async function completeUpload(
  db: Database,
  id: string,
  accountId: string,
  s: StoredBatch,
  maxBytes: number,
): Promise<BatchRow | "batch_storage_full" | { existing: BatchRow } | null> {
  const sql = db.sql();
  const [, existing, updated, still] = await sql.transaction([
    sql.query(lockSql, lockKey(accountId)),
    sql.query("SELECT * FROM batches WHERE account_id = $1 AND idempotency_key = $2", [
      accountId,
      s.idempotencyKey,
    ]),
    sql.query(
      `UPDATE batches SET status = 'queued', model = $3, total = $4, chunks = $5, chunk_lines = $6::int[],
              bytes = $7::bigint, idempotency_key = $8, body_sha256 = $9, updated_at = now()
        WHERE id = $1 AND status = 'uploading'
          AND NOT EXISTS (SELECT 1 FROM batches WHERE account_id = $2 AND idempotency_key = $8)
          AND (SELECT coalesce(sum(bytes), 0) FROM batches WHERE account_id = $2 AND id <> $1 AND ${STORED_BATCH})
              + $7::bigint <= $10::bigint
       RETURNING *`,
      [
        id,
        accountId,
        s.model,
        s.total,
        s.chunkLines.length,
        s.chunkLines,
        s.bytes,
        s.idempotencyKey,
        s.bodySha256,
        maxBytes,
      ],
    ),
    sql.query("SELECT 1 FROM batches WHERE id = $1 AND status = 'uploading'", [id]),
  ]);
  const prior = asRows(existing)[0];
  if (prior) return { existing: toBatch(prior) };
  const row = asRows(updated)[0];
  if (row) return toBatch(row);
  return asRows(still).length > 0 ? "batch_storage_full" : null;
}

/** Deletes an upload's `uploading` row (its objects are the caller's): it failed, was refused, or died. */
export async function deletePendingBatch(db: Database, id: string): Promise<void> {
  await db.sql().query("DELETE FROM batches WHERE id = $1 AND status = 'uploading'", [id]);
}

/** Uploads whose row was not touched for `idleMs` (killed mid-stream), at most `limit`. */
export async function staleUploads(db: Database, idleMs: number, limit: number): Promise<string[]> {
  const r = asRows(
    await db.sql().query(
      `SELECT id FROM batches WHERE status = 'uploading' AND updated_at < now() - make_interval(secs => $1)
        ORDER BY updated_at LIMIT $2`,
      [idleMs / 1000, limit],
    ),
  );
  return r.map((x) => String(x.id));
}

/** Which of `ids` have a row (any status). */
export async function batchIdsWithRows(db: Database, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const r = asRows(await db.sql().query("SELECT id FROM batches WHERE id = ANY($1::text[])", [ids]));
  return new Set(r.map((x) => String(x.id)));
}
