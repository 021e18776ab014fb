import type { Database } from "./db";
import { type EvaluationRow, LIVE_EVALUATION, toEvaluation } from "./evaluations";

/** The account's evaluation to work on: the running one, else a paused one, else the oldest queued. */
export async function nextActive(db: Database, accountId: string): Promise<EvaluationRow | null> {
  const rows = (await db.sql().query(
    `SELECT * FROM evaluations
      WHERE account_id = $1 AND status IN ('queued', 'running', 'paused') AND ${LIVE_EVALUATION}
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
      `SELECT DISTINCT account_id FROM evaluations WHERE status IN ('queued', 'running', 'paused') AND ${LIVE_EVALUATION}`,
    )) as Array<{ account_id: string }>;
  return rows.map((r) => r.account_id);
}

/** A queued or paused evaluation starts (or resumes) running. */
export async function markRunning(db: Database, id: string): Promise<void> {
  await db.sql().query(
    `UPDATE evaluations SET status = 'running', started_at = coalesce(started_at, now()), resumes_at = NULL,
            updated_at = now()
      WHERE id = $1 AND status IN ('queued', 'paused')`,
    [id],
  );
}

/** A running evaluation waits until `resumesAt`. */
export async function markPaused(db: Database, id: string, resumesAt: number): Promise<void> {
  await db
    .sql()
    .query(
      `UPDATE evaluations SET status = 'paused', resumes_at = $2, updated_at = now() WHERE id = $1 AND status = 'running'`,
      [id, new Date(resumesAt).toISOString()],
    );
}

/** A running evaluation ends failed with the code and message its readers see. */
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
