import type { CalibrationMap } from "../../schema/calibration-map";
import { MAX_ACTIVE_CALIBRATIONS } from "../../schema/calibrations";
import type { Database } from "./db";

/** A calibration row (times in ms since epoch; `question`, `metrics` as JSON text with their order kept). */
export interface CalibrationRow {
  id: string;
  accountId: string;
  evaluationId: string;
  questionId: string;
  model: string;
  fingerprint: string;
  question: string;
  method: "temperature" | "temperature_bias";
  map: CalibrationMap;
  n: number;
  metrics: string;
  active: boolean;
  createdAt: number;
  deactivatedAt: number | null;
}

/** What a decide needs of an active calibration. */
export interface ActiveCalibration {
  id: string;
  model: string;
  fingerprint: string;
  map: CalibrationMap;
}

const ms = (v: unknown): number | null =>
  v === null || v === undefined ? null : new Date(String(v)).getTime();

function toRow(r: Record<string, unknown>): CalibrationRow {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    evaluationId: String(r.evaluation_id),
    questionId: String(r.question_id),
    model: String(r.model),
    fingerprint: String(r.fingerprint),
    question: String(r.question),
    method: r.method === "temperature" ? "temperature" : "temperature_bias",
    map: JSON.parse(String(r.map)) as CalibrationMap,
    n: Number(r.n),
    metrics: String(r.metrics),
    active: r.active === true || r.active === "t" || r.active === "true",
    createdAt: ms(r.created_at)!,
    deactivatedAt: ms(r.deactivated_at),
  };
}

/**
 * Inserts `c` as the account's active calibration for its (version, fingerprint), replacing the active one
 * there, unless the account would pass MAX_ACTIVE_CALIBRATIONS: null then, and nothing changed. The account's
 * row is locked first, so concurrent creates of one account count one after the other.
 */
export async function insertCalibration(
  db: Database,
  c: Omit<CalibrationRow, "active" | "createdAt" | "deactivatedAt">,
): Promise<CalibrationRow | null> {
  const sql = db.sql();
  const room = `(SELECT count(*) FROM calibrations
                  WHERE account_id = $1 AND active AND NOT (model = $2 AND fingerprint = $3)) < ${MAX_ACTIVE_CALIBRATIONS}`;
  const results = await sql.transaction([
    sql.query(
      "UPDATE accounts SET calibrations_generation = calibrations_generation + 1 WHERE id = $1 RETURNING id",
      [c.accountId],
    ),
    sql.query(
      `UPDATE calibrations SET active = false, deactivated_at = now()
        WHERE account_id = $1 AND model = $2 AND fingerprint = $3 AND active AND ${room}`,
      [c.accountId, c.model, c.fingerprint],
    ),
    sql.query(
      `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n, metrics)
       SELECT $4, $1, $5, $6, $2, $3, $7, $8, $9, $10, $11 WHERE ${room} RETURNING *`,
      [
        c.accountId,
        c.model,
        c.fingerprint,
        c.id,
        c.evaluationId,
        c.questionId,
        c.question,
        c.method,
        JSON.stringify(c.map),
        c.n,
        c.metrics,
      ],
    ),
  ]);
  const inserted = results[2] as Record<string, unknown>[];
  return inserted[0] ? toRow(inserted[0]) : null;
}

/** Newest first, `limit` per page after `startingAfter` (an id). */
export async function listCalibrations(
  db: Database,
  accountId: string,
  limit: number,
  startingAfter: string | null,
): Promise<{ data: CalibrationRow[]; hasMore: boolean }> {
  const rows = (await db.sql().query(
    `SELECT * FROM calibrations WHERE account_id = $1 AND ($2::text IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [accountId, startingAfter, limit + 1],
  )) as Record<string, unknown>[];
  return { data: rows.slice(0, limit).map(toRow), hasMore: rows.length > limit };
}

/** One calibration of the account, active or not. */
export async function findCalibration(
  db: Database,
  accountId: string,
  id: string,
): Promise<CalibrationRow | null> {
  const rows = (await db
    .sql()
    .query("SELECT * FROM calibrations WHERE id = $1 AND account_id = $2", [id, accountId])) as Record<
    string,
    unknown
  >[];
  return rows[0] ? toRow(rows[0]) : null;
}

/** Deactivates one calibration (a deactivated one stays as it is); the row after, or null when not found. */
export async function deactivateCalibration(
  db: Database,
  accountId: string,
  id: string,
): Promise<CalibrationRow | null> {
  const sql = db.sql();
  await sql.transaction([
    sql.query(
      `UPDATE accounts SET calibrations_generation = calibrations_generation + 1
        WHERE id = $1 AND EXISTS (SELECT 1 FROM calibrations WHERE id = $2 AND account_id = $1 AND active)`,
      [accountId, id],
    ),
    sql.query(
      "UPDATE calibrations SET active = false, deactivated_at = now() WHERE id = $1 AND account_id = $2 AND active",
      [id, accountId],
    ),
  ]);
  return findCalibration(db, accountId, id);
}

/** Every active calibration of the account (at most MAX_ACTIVE_CALIBRATIONS): what its decides look up. */
export async function activeCalibrations(db: Database, accountId: string): Promise<ActiveCalibration[]> {
  const rows = (await db
    .sql()
    .query("SELECT id, model, fingerprint, map FROM calibrations WHERE account_id = $1 AND active", [
      accountId,
    ])) as Record<string, unknown>[];
  return rows.map((r) => ({
    id: String(r.id),
    model: String(r.model),
    fingerprint: String(r.fingerprint),
    map: JSON.parse(String(r.map)) as CalibrationMap,
  }));
}

/** Maps by id, active or not, of the account (a replay's: the calibrations its original answered with). */
export async function calibrationMaps(
  db: Database,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, CalibrationMap>> {
  const rows = (await db
    .sql()
    .query("SELECT id, map FROM calibrations WHERE account_id = $1 AND id = ANY($2::text[])", [
      accountId,
      ids,
    ])) as Record<string, unknown>[];
  return new Map(rows.map((r) => [String(r.id), JSON.parse(String(r.map)) as CalibrationMap]));
}
