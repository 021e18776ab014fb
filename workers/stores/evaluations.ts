import { type Database, msOrNull } from "./db";
import type { NewItem } from "./evaluation-items";

/** Where an evaluation stands. */
export type EvaluationStatus = "queued" | "running" | "paused" | "done" | "cancelled" | "failed";
/** The statuses of an evaluation still to run. */
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

/** An `evaluations` row as the Worker reads it. */
export function toEvaluation(r: Record<string, unknown>): EvaluationRow {
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
    resumesAt: msOrNull(r.resumes_at),
    failureCode: (r.failure_code as string | null) ?? null,
    failureMessage: (r.failure_message as string | null) ?? null,
    metrics: typeof r.metrics === "string" ? (JSON.parse(r.metrics) as Record<string, unknown>) : null,
    createdAt: msOrNull(r.created_at)!,
    startedAt: msOrNull(r.started_at),
    finishedAt: msOrNull(r.finished_at),
    updatedAt: msOrNull(r.updated_at)!,
    expiresAt: msOrNull(r.expires_at)!,
  };
}

/** SQL: the evaluation is within its retention. */
export const LIVE_EVALUATION = "expires_at > now()";

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
              + (SELECT coalesce(sum(bytes), 0) FROM reviews WHERE account_id = $2 AND expires_at > now())
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
    `SELECT * FROM evaluations WHERE account_id = $1 AND ${LIVE_EVALUATION} AND ($2::text IS NULL OR id < $2)
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
    .query(`SELECT * FROM evaluations WHERE id = $1 AND account_id = $2 AND ${LIVE_EVALUATION}`, [
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
      WHERE id = $1 AND account_id = $2 AND ${LIVE_EVALUATION} AND status IN ('queued', 'running', 'paused')
      RETURNING *`,
    [id, accountId],
  )) as Record<string, unknown>[];
  return rows[0] ? toEvaluation(rows[0]) : findEvaluation(db, accountId, id);
}

/** Deletes an evaluation with its items and answers; false when not found. */
export async function deleteEvaluation(db: Database, accountId: string, id: string): Promise<boolean> {
  const rows = (await db
    .sql()
    .query(`DELETE FROM evaluations WHERE id = $1 AND account_id = $2 AND ${LIVE_EVALUATION} RETURNING id`, [
      id,
      accountId,
    ])) as unknown[];
  return rows.length > 0;
}

/** Deletes evaluations (items and answers with them) past their 30 days; returns how many. */
export async function deleteExpiredEvaluations(db: Database): Promise<number> {
  const rows = (await db
    .sql()
    .query(`DELETE FROM evaluations WHERE expires_at <= now() RETURNING id`)) as unknown[];
  return rows.length;
}
