import type { BatchEventType, BatchStatus } from "../../schema/batches";
import type { Database } from "./db";

export type PausedReason = "insufficient_balance" | "test_daily_quota";

/** A batch row (times in ms since epoch). */
export interface BatchRow {
  id: string;
  accountId: string;
  keyId: string;
  mode: "live" | "test";
  model: string | null;
  status: BatchStatus;
  pausedReason: PausedReason | null;
  resumesAt: number | null;
  total: number;
  done: number;
  failed: number;
  inputTokens: number;
  chargeMicroCents: number;
  chunks: number;
  chunkLines: number[];
  chunksWritten: number;
  bytes: number;
  idempotencyKey: string | null;
  bodySha256: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
  expiresAt: number;
  resultsExpireAt: number | null;
}

/** A line of the chunk being run, as the runner reads it. */
export interface LineRow {
  line: number;
  attempt: string | null;
  faults: number;
  status: number | null;
  result: string | null;
}

/** A finished line whose usage event is not written yet. */
export interface UnrecordedLine {
  line: number;
  attempt: string;
  status: number;
  model: string;
  inputTokens: number;
  stateTokens: number;
  questionTokens: number;
  chargeMicroCents: number;
  unitPrice: number;
  tier: string | null;
  finishedAt: number;
}

const ms = (v: unknown): number | null =>
  v === null || v === undefined ? null : new Date(String(v)).getTime();
const iso = (t: number) => new Date(t).toISOString();

function toBatch(r: Record<string, unknown>): BatchRow {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    keyId: String(r.key_id),
    mode: r.mode as "live" | "test",
    model: (r.model as string | null) ?? null,
    status: r.status as BatchStatus,
    pausedReason: (r.paused_reason as PausedReason | null) ?? null,
    resumesAt: ms(r.resumes_at),
    total: Number(r.total),
    done: Number(r.done),
    failed: Number(r.failed),
    inputTokens: Number(r.input_tokens),
    chargeMicroCents: Number(r.charge_micro_cents),
    chunks: Number(r.chunks),
    chunkLines: (r.chunk_lines as unknown[]).map(Number),
    chunksWritten: Number(r.chunks_written),
    bytes: Number(r.bytes),
    idempotencyKey: (r.idempotency_key as string | null) ?? null,
    bodySha256: (r.body_sha256 as string | null) ?? null,
    failureCode: (r.failure_code as string | null) ?? null,
    failureMessage: (r.failure_message as string | null) ?? null,
    createdAt: ms(r.created_at)!,
    startedAt: ms(r.started_at),
    finishedAt: ms(r.finished_at),
    updatedAt: ms(r.updated_at)!,
    expiresAt: ms(r.expires_at)!,
    resultsExpireAt: ms(r.results_expire_at),
  };
}

const rows = (r: unknown) => r as Record<string, unknown>[];

/** Results and lines are kept this long after a batch finishes. */
export const RESULTS_RETENTION_DAYS = 30;
const RETENTION = `interval '${RESULTS_RETENTION_DAYS} days'`;
const ACTIVE = "status IN ('queued', 'running', 'paused')";
/** Batches whose objects still count against the account's storage (not past their results' retention). */
const STORED = "(results_expire_at IS NULL OR results_expire_at > now())";

/** Per account: batches queued, running or paused at once, and bytes of uploads kept. */
export interface BatchCaps {
  active: number;
  bytes: number;
}

export type BatchCapRefusal = "batches_in_progress" | "batch_storage_full";

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
  expiresAt: number;
}

/** How many of the account's batches are queued, running or paused. */
export async function activeBatchCount(db: Database, accountId: string): Promise<number> {
  const r = rows(
    await db
      .sql()
      .query(`SELECT count(*) AS n FROM batches WHERE account_id = $1 AND ${ACTIVE}`, [accountId]),
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
                            idempotency_key, body_sha256, expires_at)
       SELECT $1, $2, $3, $4, $5, 'queued', $6, $7, $8::int[], $9::bigint, $10, $11, $12
        WHERE NOT EXISTS (SELECT 1 FROM batches WHERE account_id = $2 AND idempotency_key = $10)
          AND (SELECT count(*) FROM batches WHERE account_id = $2 AND ${ACTIVE}) < $13
          AND (SELECT coalesce(sum(bytes), 0) FROM batches WHERE account_id = $2 AND ${STORED})
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
        iso(b.expiresAt),
        caps.active,
        caps.bytes,
      ],
    ),
    sql.query(`SELECT count(*) AS n FROM batches WHERE account_id = $1 AND ${ACTIVE}`, [b.accountId]),
  ]);
  const prior = rows(existing)[0];
  if (prior) return { existing: toBatch(prior) };
  const row = rows(inserted)[0];
  if (row) return toBatch(row);
  return Number(rows(used)[0]?.n ?? 0) >= caps.active ? "batches_in_progress" : "batch_storage_full";
}

/** The batch an idempotency key created (null: none). */
export async function findBatchByIdempotencyKey(
  db: Database,
  accountId: string,
  key: string,
): Promise<BatchRow | null> {
  const r = rows(
    await db
      .sql()
      .query("SELECT * FROM batches WHERE account_id = $1 AND idempotency_key = $2", [accountId, key]),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/** One batch of the account (null: none, another account's, or deleted). */
export async function findBatch(db: Database, accountId: string, id: string): Promise<BatchRow | null> {
  const r = rows(
    await db.sql().query("SELECT * FROM batches WHERE id = $1 AND account_id = $2", [id, accountId]),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/** The account's batches, newest first, after `startingAfter`; one more than `limit` tells `has_more`. */
export async function listBatches(
  db: Database,
  accountId: string,
  limit: number,
  startingAfter: string | null,
): Promise<{ data: BatchRow[]; hasMore: boolean }> {
  const r = rows(
    await db.sql().query(
      `SELECT * FROM batches WHERE account_id = $1 AND ($2::text IS NULL OR id < $2)
        ORDER BY id DESC LIMIT $3`,
      [accountId, startingAfter, limit + 1],
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
  const r = rows(
    await db.sql().query(
      `WITH b AS (
         UPDATE batches SET status = $2, paused_reason = NULL, resumes_at = NULL, finished_at = now(),
                results_expire_at = now() + ${RETENTION}, failure_code = $4, failure_message = $5, updated_at = now()
          WHERE id = $1 AND ${ACTIVE}
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

/** Deletes a finished batch with its lines and pending events (its R2 objects are the caller's). */
export async function deleteFinishedBatch(db: Database, accountId: string, id: string): Promise<boolean> {
  const sql = db.sql();
  const [deleted] = await sql.transaction([
    sql.query(`DELETE FROM batches WHERE id = $1 AND account_id = $2 AND NOT ${ACTIVE} RETURNING id`, [
      id,
      accountId,
    ]),
    sql.query("DELETE FROM webhook_deliveries WHERE batch_id = $1 AND delivered_at IS NULL", [id]),
  ]);
  return rows(deleted).length > 0;
}

/** The batch the account's runner works on next: the running one, else a paused one due, else the oldest queued. */
export async function nextRunnableBatch(db: Database, accountId: string): Promise<BatchRow | null> {
  const r = rows(
    await db.sql().query(
      `SELECT * FROM batches WHERE account_id = $1 AND ${ACTIVE}
        ORDER BY CASE status WHEN 'running' THEN 0 WHEN 'paused' THEN 1 ELSE 2 END,
                 (status = 'paused' AND resumes_at > now()), id
        LIMIT 1`,
      [accountId],
    ),
  );
  return r[0] ? toBatch(r[0]) : null;
}

/** Status, counts and position of a batch, read between groups of lines (null: deleted). */
export async function batchProgress(db: Database, id: string): Promise<BatchRow | null> {
  const r = rows(await db.sql().query("SELECT * FROM batches WHERE id = $1", [id]));
  return r[0] ? toBatch(r[0]) : null;
}

export async function markBatchRunning(db: Database, id: string): Promise<void> {
  await db.sql().query(
    `UPDATE batches SET status = 'running', paused_reason = NULL, resumes_at = NULL,
            started_at = coalesce(started_at, now()), updated_at = now()
      WHERE id = $1
        AND (status = 'queued' OR (status = 'paused' AND (resumes_at IS NULL OR resumes_at <= now())))`,
    [id],
  );
}

export async function markBatchPaused(
  db: Database,
  id: string,
  reason: PausedReason,
  resumesAt: number,
): Promise<void> {
  await db.sql().query(
    `UPDATE batches SET status = 'paused', paused_reason = $2, resumes_at = $3, updated_at = now()
      WHERE id = $1 AND status IN ('running', 'paused')`,
    [id, reason, iso(resumesAt)],
  );
}

/** A top-up: the account's batches paused for their balance are due at once. */
export async function resumeBalancePaused(db: Database, accountId: string): Promise<number> {
  const r = rows(
    await db.sql().query(
      `UPDATE batches SET resumes_at = now(), updated_at = now()
        WHERE account_id = $1 AND status = 'paused' AND paused_reason = 'insufficient_balance' RETURNING id`,
      [accountId],
    ),
  );
  return r.length;
}

/** Cancels a queued, running or paused batch (lines in flight still finish and are billed). */
export async function cancelBatch(db: Database, id: string, eventId: string): Promise<BatchRow | null> {
  return finishBatch(db, id, "cancelled", eventId);
}

export async function touchBatch(db: Database, id: string): Promise<void> {
  await db.sql().query("UPDATE batches SET updated_at = now() WHERE id = $1", [id]);
}

/** Creates the rows of a chunk's lines (once: a repeat inserts nothing). */
export async function openChunk(
  db: Database,
  id: string,
  chunk: number,
  first: number,
  count: number,
): Promise<void> {
  await db.sql().query(
    `INSERT INTO batch_lines (batch_id, line, chunk)
     SELECT $1, g, $2 FROM generate_series($3::int, $3::int + $4::int - 1) AS g
     ON CONFLICT DO NOTHING`,
    [id, chunk, first, count],
  );
}

/** Lines of a chunk not finished yet, in order. */
export async function pendingLines(
  db: Database,
  id: string,
  chunk: number,
  limit: number,
): Promise<LineRow[]> {
  const r = rows(
    await db.sql().query(
      `SELECT line, attempt, faults, status, result FROM batch_lines
        WHERE batch_id = $1 AND chunk = $2 AND status IS NULL ORDER BY line LIMIT $3`,
      [id, chunk, limit],
    ),
  );
  return r.map((x) => ({
    line: Number(x.line),
    attempt: (x.attempt as string | null) ?? null,
    faults: Number(x.faults),
    status: null,
    result: null,
  }));
}

/**
 * Gives a line to a new attempt: the previous attempt, if any, joins `owed` (its debit, if it was taken, is to be
 * refunded before the new one may charge). Returns what is owed, or null when the line is finished or gone.
 */
export async function claimLine(
  db: Database,
  id: string,
  line: number,
  attempt: string,
): Promise<string[] | null> {
  const r = rows(
    await db.sql().query(
      `UPDATE batch_lines
          SET owed = CASE WHEN attempt IS NULL THEN owed ELSE array_append(owed, attempt) END, attempt = $3
        WHERE batch_id = $1 AND line = $2 AND status IS NULL
        RETURNING owed`,
      [id, line, attempt],
    ),
  );
  return r[0] ? (r[0].owed as string[]) : null;
}

/** The earlier attempts of a line are settled (refunded where they had been debited). */
export async function clearOwed(db: Database, id: string, line: number, settled: string[]): Promise<void> {
  await db.sql().query(
    `UPDATE batch_lines SET owed = ARRAY(SELECT o FROM unnest(owed) AS o WHERE NOT (o = ANY($3::text[])))
      WHERE batch_id = $1 AND line = $2`,
    [id, line, settled],
  );
}

/** An engine fault on a line's attempt: how many in a row now. */
export async function addLineFault(db: Database, id: string, line: number): Promise<number> {
  const r = rows(
    await db
      .sql()
      .query(
        "UPDATE batch_lines SET faults = faults + 1 WHERE batch_id = $1 AND line = $2 RETURNING faults",
        [id, line],
      ),
  );
  return Number(r[0]?.faults ?? 0);
}

/** What a finished line stores: its result line and what its usage event needs. */
export interface LineOutcome {
  status: number;
  result: string;
  model: string;
  inputTokens: number;
  stateTokens: number;
  questionTokens: number;
  chargeMicroCents: number;
  unitPrice: number;
  tier: string | null;
}

/**
 * Counts a finished line ONCE: stores its result and adds it to the batch's counts and usage only if `attempt`
 * still holds the line and it was not finished (one statement). False: another attempt holds it, it is
 * finished, or the batch is gone — the caller refunds its own debit.
 */
export async function commitLine(
  db: Database,
  id: string,
  line: number,
  attempt: string,
  o: LineOutcome,
): Promise<boolean> {
  const r = rows(
    await db.sql().query(
      `WITH l AS (
         UPDATE batch_lines SET status = $4, result = $5, model = $6, input_tokens = $7, state_tokens = $8,
                question_tokens = $9, charge_micro_cents = $10, unit_price = $11, tier = $12, finished_at = now()
          WHERE batch_id = $1 AND line = $2 AND attempt = $3 AND status IS NULL
          RETURNING status, input_tokens, charge_micro_cents)
       UPDATE batches
          SET done = done + (SELECT count(*) FROM l WHERE status = 200),
              failed = failed + (SELECT count(*) FROM l WHERE status <> 200),
              input_tokens = input_tokens + coalesce((SELECT sum(input_tokens) FROM l WHERE status = 200), 0),
              charge_micro_cents = charge_micro_cents
                + coalesce((SELECT sum(charge_micro_cents) FROM l WHERE status = 200), 0),
              updated_at = now()
        WHERE id = $1 AND EXISTS (SELECT 1 FROM l)
        RETURNING id`,
      [
        id,
        line,
        attempt,
        o.status,
        o.result,
        o.model,
        o.inputTokens,
        o.stateTokens,
        o.questionTokens,
        o.chargeMicroCents,
        o.unitPrice,
        o.tier,
      ],
    ),
  );
  return r.length > 0;
}

/** Finished lines of the batch whose usage events are not written yet. */
export async function unrecordedLines(db: Database, id: string): Promise<UnrecordedLine[]> {
  const r = rows(
    await db.sql().query(
      `SELECT line, attempt, status, model, input_tokens, state_tokens, question_tokens, charge_micro_cents,
              unit_price, tier, finished_at
         FROM batch_lines WHERE batch_id = $1 AND status IS NOT NULL AND NOT usage_recorded ORDER BY line`,
      [id],
    ),
  );
  return r.map((x) => ({
    line: Number(x.line),
    attempt: String(x.attempt),
    status: Number(x.status),
    model: String(x.model),
    inputTokens: Number(x.input_tokens),
    stateTokens: Number(x.state_tokens),
    questionTokens: Number(x.question_tokens),
    chargeMicroCents: Number(x.charge_micro_cents),
    unitPrice: Number(x.unit_price),
    tier: (x.tier as string | null) ?? null,
    finishedAt: ms(x.finished_at)!,
  }));
}

export async function markLinesRecorded(db: Database, id: string, lines: number[]): Promise<void> {
  await db
    .sql()
    .query("UPDATE batch_lines SET usage_recorded = true WHERE batch_id = $1 AND line = ANY($2::int[])", [
      id,
      lines,
    ]);
}

/** The result lines of a chunk's finished lines, in input order. */
export async function chunkResults(db: Database, id: string, chunk: number): Promise<string[]> {
  const r = rows(
    await db
      .sql()
      .query(
        "SELECT result FROM batch_lines WHERE batch_id = $1 AND chunk = $2 AND status IS NOT NULL ORDER BY line",
        [id, chunk],
      ),
  );
  return r.map((x) => String(x.result));
}

/**
 * A chunk's results are in R2: the batch moves past it and its rows go (only once every line's usage event is
 * written). False when the chunk was already written out (a repeat).
 */
export async function closeChunk(db: Database, id: string, chunk: number): Promise<boolean> {
  const sql = db.sql();
  const [moved] = await sql.transaction([
    sql.query(
      `UPDATE batches SET chunks_written = chunks_written + 1, updated_at = now()
        WHERE id = $1 AND chunks_written = $2 RETURNING id`,
      [id, chunk],
    ),
    sql.query(
      `DELETE FROM batch_lines WHERE batch_id = $1 AND chunk = $2 AND usage_recorded
          AND (SELECT chunks_written FROM batches WHERE id = $1) > $2`,
      [id, chunk],
    ),
  ]);
  return rows(moved).length > 0;
}

/** Accounts with a batch queued, running or paused, or an event to deliver (the cron kicks their runners). */
export async function accountsWithBatchWork(db: Database): Promise<string[]> {
  const r = rows(
    await db.sql().query(
      `SELECT DISTINCT account_id FROM batches WHERE ${ACTIVE}
       UNION SELECT DISTINCT account_id FROM webhook_deliveries WHERE delivered_at IS NULL AND given_up_at IS NULL`,
    ),
  );
  return r.map((x) => String(x.account_id));
}

/** Batches whose results' retention has passed (the cron deletes their objects, then the rows). */
export async function expiredResults(
  db: Database,
  limit: number,
): Promise<{ id: string; accountId: string }[]> {
  const r = rows(
    await db
      .sql()
      .query(
        "SELECT id, account_id FROM batches WHERE results_expire_at <= now() ORDER BY results_expire_at LIMIT $1",
        [limit],
      ),
  );
  return r.map((x) => ({ id: String(x.id), accountId: String(x.account_id) }));
}
