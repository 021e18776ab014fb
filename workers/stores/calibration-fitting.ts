import {
  type CalibrationMode,
  type CalibrationRow,
  type FittedCalibration,
  fittedValues,
  ROW_COLUMNS,
  roomForOneMore,
  toRow,
} from "./calibrations";
import type { Database } from "./db";

/** A calibration the runner fits (issue 49: fits above the in-request bound). */
export interface FittingCalibration {
  id: string;
  accountId: string;
  evaluationId: string;
  questionId: string;
  model: string;
  mode: CalibrationMode;
  /** The runner's tries so far, this one included. */
  attempts: number;
  createdAt: number;
}

/** Still fitting and not deleted: the rows the runner works on. */
const FITTING = "status = 'fitting' AND deactivated_at IS NULL";

/**
 * Stores a calibration as `fitting` (inactive, its fitted fields null), unless one of the same (account,
 * evaluation, question, mode) is already fitting: that one then, unchanged (two creates at once fit once).
 */
export async function insertFitting(
  db: Database,
  c: Pick<FittingCalibration, "id" | "accountId" | "evaluationId" | "questionId" | "model" | "mode">,
): Promise<CalibrationRow> {
  const sql = db.sql();
  const key = [c.accountId, c.evaluationId, c.questionId, c.mode];
  const [inserted] = (await sql.query(
    `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, mode, model, status, active)
     VALUES ($5, $1, $2, $3, $4, $6, 'fitting', false)
     ON CONFLICT (account_id, evaluation_id, question_id, mode) WHERE ${FITTING} DO NOTHING
     RETURNING ${ROW_COLUMNS}`,
    [...key, c.id, c.model],
  )) as Record<string, unknown>[];
  if (inserted) return toRow(inserted);
  const [running] = (await sql.query(
    `SELECT ${ROW_COLUMNS} FROM calibrations
      WHERE account_id = $1 AND evaluation_id = $2 AND question_id = $3 AND mode = $4 AND ${FITTING}`,
    [...key],
  )) as Record<string, unknown>[];
  // Finished between the two statements: fit again under this id (the kept fit makes it instant).
  return running ? toRow(running) : insertFitting(db, c);
}

/** The account's oldest fitting calibration, its tries counted up by this one; null when none is left. */
export async function claimFitting(db: Database, accountId: string): Promise<FittingCalibration | null> {
  const [r] = (await db.sql().query(
    `UPDATE calibrations SET attempts = attempts + 1
      WHERE id = (SELECT id FROM calibrations WHERE account_id = $1 AND ${FITTING} ORDER BY id LIMIT 1)
      RETURNING id, account_id, evaluation_id, question_id, model, mode, attempts, created_at`,
    [accountId],
  )) as Record<string, unknown>[];
  if (!r) return null;
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    evaluationId: String(r.evaluation_id),
    questionId: String(r.question_id),
    model: String(r.model),
    mode: r.mode === "test" ? "test" : "live",
    attempts: Number(r.attempts),
    createdAt: new Date(String(r.created_at)).getTime(),
  };
}

/** An account webhook event a fit's end queues: its id and its signed payload's JSON text. */
export interface FitEvent {
  id: string;
  type: "calibration.ready" | "calibration.failed";
  payload: string;
}

/** Queues `event` for the account's endpoint (none set: nothing) when `condition` (SQL over $1 = account) holds. */
const queueEvent = (condition: string, at: number) =>
  `INSERT INTO webhook_deliveries (id, account_id, batch_id, type, payload)
   SELECT $${at}, $1, NULL, $${at + 1}, $${at + 2}
    WHERE ${condition} AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.account_id = $1)`;

/**
 * Makes a fitting calibration the active one of its (version, fingerprint, mode) with the fit's fields, replacing
 * the one there exactly as `insertCalibration` does (same account lock, same cap): `active`; `gone` when it was
 * deleted (or already finished) meanwhile, nothing changed; `full` when the account has no room, nothing changed.
 * `event` (`calibration.ready`) is queued in the same transaction, only when the calibration became active.
 */
export async function completeFitting(
  db: Database,
  c: FittedCalibration,
  event?: FitEvent,
): Promise<"active" | "gone" | "full"> {
  const sql = db.sql();
  const mine = `id = $4 AND account_id = $1 AND ${FITTING}`;
  const room = roomForOneMore("$5");
  const params = [c.accountId, c.model, c.fingerprint, c.id, c.mode];
  const results = await sql.transaction([
    sql.query(
      "UPDATE accounts SET calibrations_generation = calibrations_generation + 1 WHERE id = $1 RETURNING id",
      [c.accountId],
    ),
    sql.query(
      `UPDATE calibrations SET active = false, deactivated_at = now()
        WHERE account_id = $1 AND model = $2 AND fingerprint = $3 AND mode = $5 AND active AND id <> $4
          AND ${room} AND EXISTS (SELECT 1 FROM calibrations WHERE ${mine})`,
      params,
    ),
    sql.query(
      `UPDATE calibrations SET status = 'fitted', active = true, fingerprint = $3, question = $6, method = $7,
              map = $8, n = $9, metrics = $10, features = $11, learned = $12
        WHERE ${mine} AND ${room} RETURNING id`,
      [...params, ...fittedValues(c)],
    ),
    sql.query(`SELECT 1 FROM calibrations WHERE id = $2 AND account_id = $1 AND ${FITTING}`, [
      c.accountId,
      c.id,
    ]),
    ...(event
      ? [
          sql.query(
            queueEvent(
              "EXISTS (SELECT 1 FROM calibrations WHERE id = $2 AND account_id = $1 AND status = 'fitted' AND active)",
              3,
            ),
            [c.accountId, c.id, event.id, event.type, event.payload],
          ),
        ]
      : []),
  ]);
  if ((results[2] as unknown[]).length > 0) return "active";
  return (results[3] as unknown[]).length > 0 ? "full" : "gone";
}

/**
 * Ends a fitting calibration as `failed` at `at` with `error` (JSON text), queueing `event` (`calibration.failed`)
 * in the same statement; false when it was deleted (or already ended) meanwhile, nothing queued.
 */
export async function failFitting(
  db: Database,
  ended: { accountId: string; id: string; error: string; at: number },
  event?: FitEvent,
): Promise<boolean> {
  const rows = (await db.sql().query(
    `WITH ended AS (
       UPDATE calibrations SET status = 'failed', error = $3, deactivated_at = $4
        WHERE id = $2 AND account_id = $1 AND ${FITTING} RETURNING id)
     ${event ? `, ev AS (${queueEvent("EXISTS (SELECT 1 FROM ended)", 5)})` : ""}
     SELECT id FROM ended`,
    [
      ended.accountId,
      ended.id,
      ended.error,
      new Date(ended.at).toISOString(),
      ...(event ? [event.id, event.type, event.payload] : []),
    ],
  )) as unknown[];
  return rows.length > 0;
}

/** Accounts with a calibration still to fit: the cron kicks their runners (a lost alarm loses no fit). */
export async function accountsWithFitting(db: Database): Promise<string[]> {
  const rows = (await db
    .sql()
    .query(`SELECT DISTINCT account_id FROM calibrations WHERE ${FITTING}`, [])) as Record<string, unknown>[];
  return rows.map((r) => String(r.account_id));
}

/** Gives back a try that failed for a passing reason (a store outage), so only cut-short fits use up tries. */
export async function giveBackAttempt(db: Database, id: string): Promise<void> {
  await db.sql().query("UPDATE calibrations SET attempts = greatest(attempts - 1, 0) WHERE id = $1", [id]);
}
