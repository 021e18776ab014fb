import type { Database } from "./db";

export type EvaluationStatus = "queued" | "running" | "paused" | "done" | "cancelled" | "failed";
export const ACTIVE_STATUSES: readonly EvaluationStatus[] = ["queued", "running", "paused"];

/** An evaluation row (times in ms since epoch). */
export interface EvaluationRow {
  id: string;
  accountId: string;
  keyId: string;
  name: string;
  model: string;
  status: EvaluationStatus;
  total: number;
  done: number;
  inputTokens: number;
  resumesAt: number | null;
  failureCode: string | null;
  failureMessage: string | null;
  /** Per question id in first-seen order, once done. */
  metrics: Record<string, unknown> | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
  expiresAt: number;
}

/** An item to insert: its position, request and expected labels as JSON text, and token counts. */
export interface NewItem {
  idx: number;
  request: string;
  expected: string;
  input_tokens: number;
  state_tokens: number;
  question_tokens: number;
}

/** An item as the runner and the item listing read it. */
export interface ItemRow {
  idx: number;
  request: string;
  expected: string;
  inputTokens: number;
  stateTokens: number;
  questionTokens: number;
  done: boolean;
  attempt: string | null;
  answers: string | null;
  calibration: string | null;
  scoredAt: number | null;
}

const ms = (v: unknown): number | null =>
  v === null || v === undefined ? null : new Date(String(v)).getTime();

function toEvaluation(r: Record<string, unknown>): EvaluationRow {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    keyId: String(r.key_id),
    name: String(r.name),
    model: String(r.model),
    status: r.status as EvaluationStatus,
    total: Number(r.total),
    done: Number(r.done),
    inputTokens: Number(r.input_tokens),
    resumesAt: ms(r.resumes_at),
    failureCode: (r.failure_code as string | null) ?? null,
    failureMessage: (r.failure_message as string | null) ?? null,
    metrics: typeof r.metrics === "string" ? (JSON.parse(r.metrics) as Record<string, unknown>) : null,
    createdAt: ms(r.created_at)!,
    startedAt: ms(r.started_at),
    finishedAt: ms(r.finished_at),
    updatedAt: ms(r.updated_at)!,
    expiresAt: ms(r.expires_at)!,
  };
}

function toItem(r: Record<string, unknown>): ItemRow {
  return {
    idx: Number(r.idx),
    request: String(r.request),
    expected: String(r.expected),
    inputTokens: Number(r.input_tokens),
    stateTokens: Number(r.state_tokens),
    questionTokens: Number(r.question_tokens),
    done: r.status === "done",
    attempt: (r.attempt as string | null) ?? null,
    answers: (r.answers as string | null) ?? null,
    calibration: (r.calibration as string | null) ?? null,
    scoredAt: ms(r.scored_at),
  };
}

const LIVE = "expires_at > now()";

/** Per account: evaluations queued, running or paused at once, and bytes stored (`evaluations.bytes`). */
export interface EvaluationCaps {
  active: number;
  bytes: number;
}

/** Why a creation was refused: the account's active evaluations, or its stored bytes, are at their cap. */
export type CapRefusal = "evaluations_in_progress" | "evaluation_storage_full";

const ACTIVE_SQL = "status IN ('queued', 'running', 'paused') AND expires_at > now()";

/**
 * Inserts the evaluation (queued) and all its items in one transaction, only while the account stays within
 * `caps` (checked under a per-account advisory lock, so parallel creations cannot pass a cap together);
 * otherwise inserts nothing and says which cap refused it.
 */
export async function insertEvaluation(
  db: Database,
  e: {
    id: string;
    accountId: string;
    keyId: string;
    name: string;
    model: string;
    expiresAt: number;
    bytes: number;
  },
  items: readonly NewItem[],
  caps: EvaluationCaps,
): Promise<EvaluationRow | CapRefusal> {
  const sql = db.sql();
  const [, rows, , usedRows] = await sql.transaction([
    sql.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 45))", [`evaluations:${e.accountId}`]),
    sql.query(
      `INSERT INTO evaluations (id, account_id, key_id, name, model, status, total, expires_at, bytes)
       SELECT $1, $2, $3, $4, $5, 'queued', $6, $7, $8::bigint
        WHERE (SELECT count(*) FROM evaluations WHERE account_id = $2 AND ${ACTIVE_SQL}) < $9
          AND (SELECT coalesce(sum(bytes), 0) FROM evaluations WHERE account_id = $2 AND expires_at > now())
              + $8::bigint <= $10::bigint
       RETURNING *`,
      [
        e.id,
        e.accountId,
        e.keyId,
        e.name,
        e.model,
        items.length,
        new Date(e.expiresAt).toISOString(),
        e.bytes,
        caps.active,
        caps.bytes,
      ],
    ),
    sql.query(
      `INSERT INTO evaluation_items (evaluation_id, idx, request, expected, input_tokens, state_tokens, question_tokens)
       SELECT $1, x.idx, x.request, x.expected, x.input_tokens, x.state_tokens, x.question_tokens
         FROM jsonb_to_recordset($2::jsonb)
           AS x(idx int, request text, expected text, input_tokens int, state_tokens int, question_tokens int)
        WHERE EXISTS (SELECT 1 FROM evaluations WHERE id = $1)`,
      [e.id, JSON.stringify(items)],
    ),
    sql.query(`SELECT (SELECT count(*) FROM evaluations WHERE account_id = $1 AND ${ACTIVE_SQL}) AS active`, [
      e.accountId,
    ]),
  ]);
  const row = (rows as Record<string, unknown>[])[0];
  if (row) return toEvaluation(row);
  const active = Number((usedRows as Record<string, unknown>[])[0]?.active ?? 0);
  return active >= caps.active ? "evaluations_in_progress" : "evaluation_storage_full";
}

/** The account's evaluations, newest first, after `startingAfter` (an id); one more than `limit` tells `has_more`. */
export async function listEvaluations(
  db: Database,
  accountId: string,
  limit: number,
  startingAfter: string | null,
): Promise<{ data: EvaluationRow[]; hasMore: boolean }> {
  const rows = (await db.sql().query(
    `SELECT * FROM evaluations WHERE account_id = $1 AND ${LIVE} AND ($2::text IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [accountId, startingAfter, limit + 1],
  )) as Record<string, unknown>[];
  return { data: rows.slice(0, limit).map(toEvaluation), hasMore: rows.length > limit };
}

/** One evaluation of the account (null: none, another account's, or past its retention). */
export async function findEvaluation(
  db: Database,
  accountId: string,
  id: string,
): Promise<EvaluationRow | null> {
  const rows = (await db
    .sql()
    .query(`SELECT * FROM evaluations WHERE id = $1 AND account_id = $2 AND ${LIVE}`, [
      id,
      accountId,
    ])) as Record<string, unknown>[];
  return rows[0] ? toEvaluation(rows[0]) : null;
}

/** Cancels a queued, running or paused evaluation; a finished one is left as it is. Null when not found. */
export async function cancelEvaluation(
  db: Database,
  accountId: string,
  id: string,
): Promise<EvaluationRow | null> {
  const rows = (await db.sql().query(
    `UPDATE evaluations SET status = 'cancelled', resumes_at = NULL, finished_at = now(), updated_at = now()
      WHERE id = $1 AND account_id = $2 AND ${LIVE} AND status IN ('queued', 'running', 'paused')
      RETURNING *`,
    [id, accountId],
  )) as Record<string, unknown>[];
  return rows[0] ? toEvaluation(rows[0]) : findEvaluation(db, accountId, id);
}

/** Deletes an evaluation with its items and answers; false when not found. */
export async function deleteEvaluation(db: Database, accountId: string, id: string): Promise<boolean> {
  const rows = (await db
    .sql()
    .query(`DELETE FROM evaluations WHERE id = $1 AND account_id = $2 AND ${LIVE} RETURNING id`, [
      id,
      accountId,
    ])) as unknown[];
  return rows.length > 0;
}

/** A page of an evaluation's items in upload order, from position `from`. */
export async function listItems(db: Database, id: string, from: number, limit: number): Promise<ItemRow[]> {
  const rows = (await db
    .sql()
    .query(`SELECT * FROM evaluation_items WHERE evaluation_id = $1 AND idx >= $2 ORDER BY idx LIMIT $3`, [
      id,
      from,
      limit,
    ])) as Record<string, unknown>[];
  return rows.map(toItem);
}

// ---- the runner's statements ----

/** The account's evaluation to work on: the running one, else a paused one, else the oldest queued. */
export async function nextActive(db: Database, accountId: string): Promise<EvaluationRow | null> {
  const rows = (await db.sql().query(
    `SELECT * FROM evaluations
      WHERE account_id = $1 AND status IN ('queued', 'running', 'paused') AND ${LIVE}
      ORDER BY CASE status WHEN 'running' THEN 0 WHEN 'paused' THEN 1 ELSE 2 END, id LIMIT 1`,
    [accountId],
  )) as Record<string, unknown>[];
  return rows[0] ? toEvaluation(rows[0]) : null;
}

/** Accounts with an evaluation still to run (the cron's safety net). */
export async function accountsWithActiveEvaluations(db: Database): Promise<string[]> {
  const rows = (await db
    .sql()
    .query(
      `SELECT DISTINCT account_id FROM evaluations WHERE status IN ('queued', 'running', 'paused') AND ${LIVE}`,
    )) as Array<{ account_id: string }>;
  return rows.map((r) => r.account_id);
}

export async function markRunning(db: Database, id: string): Promise<void> {
  await db.sql().query(
    `UPDATE evaluations SET status = 'running', started_at = coalesce(started_at, now()), resumes_at = NULL,
            updated_at = now()
      WHERE id = $1 AND status IN ('queued', 'paused')`,
    [id],
  );
}

export async function markPaused(db: Database, id: string, resumesAt: number): Promise<void> {
  await db
    .sql()
    .query(
      `UPDATE evaluations SET status = 'paused', resumes_at = $2, updated_at = now() WHERE id = $1 AND status = 'running'`,
      [id, new Date(resumesAt).toISOString()],
    );
}

export async function markFailed(db: Database, id: string, code: string, message: string): Promise<void> {
  await db.sql().query(
    `UPDATE evaluations SET status = 'failed', failure_code = $2, failure_message = $3, finished_at = now(),
            updated_at = now()
      WHERE id = $1 AND status = 'running'`,
    [id, code, message],
  );
}

/** Marks the run alive (`updated_at`), so a reader can tell a stalled run from a working one. */
export async function touch(db: Database, id: string): Promise<void> {
  await db.sql().query(`UPDATE evaluations SET updated_at = now() WHERE id = $1`, [id]);
}

/** Up to `n` items still to score, in upload order, while the evaluation is running. */
export async function pendingItems(db: Database, id: string, n: number): Promise<ItemRow[]> {
  const rows = (await db.sql().query(
    `SELECT i.* FROM evaluation_items i JOIN evaluations e ON e.id = i.evaluation_id
      WHERE i.evaluation_id = $1 AND e.status = 'running' AND i.status <> 'done'
      ORDER BY i.idx LIMIT $2`,
    [id, n],
  )) as Record<string, unknown>[];
  return rows.map(toItem);
}

/**
 * Stores an item's answers and counts it, in one statement, only if it was not scored before and the run is
 * still running: each item is counted exactly once however often it was sent to the engine. True when counted.
 */
export async function commitItem(
  db: Database,
  id: string,
  idx: number,
  r: { attempt: string; answers: string; calibration: string; scoredAt: number },
): Promise<boolean> {
  const rows = (await db.sql().query(
    `WITH it AS (
       UPDATE evaluation_items
          SET status = 'done', attempt = $3, answers = $4, calibration = $5, scored_at = $6
        WHERE evaluation_id = $1 AND idx = $2 AND status <> 'done'
          AND EXISTS (SELECT 1 FROM evaluations WHERE id = $1 AND status = 'running')
        RETURNING input_tokens
     )
     UPDATE evaluations
        SET done = done + (SELECT count(*) FROM it),
            input_tokens = input_tokens + coalesce((SELECT sum(input_tokens) FROM it), 0),
            updated_at = now()
      WHERE id = $1
      RETURNING (SELECT count(*) FROM it)::int AS counted`,
    [id, idx, r.attempt, r.answers, r.calibration, new Date(r.scoredAt).toISOString()],
  )) as Array<{ counted: number }>;
  return (rows[0]?.counted ?? 0) === 1;
}

/** Scored items whose usage event is not yet known to be written. */
export async function unrecordedItems(db: Database, id: string): Promise<ItemRow[]> {
  const rows = (await db
    .sql()
    .query(
      `SELECT * FROM evaluation_items WHERE evaluation_id = $1 AND status = 'done' AND NOT usage_recorded ORDER BY idx`,
      [id],
    )) as Record<string, unknown>[];
  return rows.map(toItem);
}

export async function markUsageRecorded(db: Database, id: string, idxs: readonly number[]): Promise<void> {
  await db
    .sql()
    .query(
      `UPDATE evaluation_items SET usage_recorded = true WHERE evaluation_id = $1 AND idx = ANY($2::int[])`,
      [id, idxs],
    );
}

/** Every item's expected labels and answers (for the metrics), in upload order. */
export async function scoredItems(
  db: Database,
  id: string,
): Promise<Array<{ expected: string; answers: string | null }>> {
  return (await db
    .sql()
    .query(`SELECT expected, answers FROM evaluation_items WHERE evaluation_id = $1 ORDER BY idx`, [
      id,
    ])) as Array<{
    expected: string;
    answers: string | null;
  }>;
}

/**
 * Ends a fully scored run with its metrics (only when every item is counted), kept as JSON text: questions in
 * the order they first appear, each metric object in its field order (migration 0011).
 */
export async function finishEvaluation(
  db: Database,
  id: string,
  metrics: Record<string, unknown>,
): Promise<boolean> {
  const rows = (await db.sql().query(
    `UPDATE evaluations SET status = 'done', metrics = $2, finished_at = now(), updated_at = now()
      WHERE id = $1 AND status = 'running' AND done = total RETURNING id`,
    [id, JSON.stringify(metrics)],
  )) as unknown[];
  return rows.length > 0;
}

/** Deletes evaluations (items and answers with them) past their 30 days; returns how many. */
export async function deleteExpiredEvaluations(db: Database): Promise<number> {
  const rows = (await db
    .sql()
    .query(`DELETE FROM evaluations WHERE expires_at <= now() RETURNING id`)) as unknown[];
  return rows.length;
}
