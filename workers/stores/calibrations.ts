import type { CalibrationMap } from "../../schema/calibration-map";
import { MAX_ACTIVE_CALIBRATIONS } from "../../schema/calibrations";
import type { Database } from "./db";

/** How a calibration answers (workers/calibrations/cross-validate.ts, `CalibrationMethod`). */
export type StoredMethod = "temperature" | "temperature_bias" | "state_words";

/** Whose decides a calibration answers: a test key's answer test decides only (issue 50). */
export type CalibrationMode = "live" | "test";

/** What a fit stores: a calibration made and measured (`insertCalibration`, `completeFitting`). */
export interface FittedCalibration {
  id: string;
  accountId: string;
  evaluationId: string;
  questionId: string;
  model: string;
  fingerprint: string;
  /** The mode of its creator: a test key → test; a live key or a console session → live. */
  mode: CalibrationMode;
  question: string;
  method: StoredMethod;
  map: CalibrationMap;
  /** `state_words`: what the model read, as JSON text (the object's `features`); null for a map. */
  features?: string | null;
  /**
   * `state_words`: the model's JSON text (schema/learned/model.ts, ≤ 256 KiB), written on insert and read only by
   * `learnedModel`: rows read for the API leave it out (undefined).
   */
  learned?: string | null;
  n: number;
  metrics: string;
}

/**
 * Where a calibration is (issue 49): `fitting` on the account's runner, `active` answering decides, `inactive`
 * (replaced, deleted, or deleted while fitting), `failed` (its `error` says why).
 */
export type CalibrationStatus = "fitting" | "active" | "inactive" | "failed";

/** The fields a fit fills: null while `fitting` and when `failed`. */
type FitFields = "fingerprint" | "question" | "method" | "map" | "n" | "metrics";

/** A calibration row (times in ms since epoch; `question`, `metrics` as JSON text with their order kept). */
export type CalibrationRow = Omit<FittedCalibration, FitFields> & {
  [K in FitFields]: FittedCalibration[K] | null;
} & {
  status: CalibrationStatus;
  /** `failed`: the error a synchronous create would have answered, JSON text {"code","param"?,"message"}. */
  error: string | null;
  active: boolean;
  createdAt: number;
  deactivatedAt: number | null;
};

/** What a decide needs of an active calibration (a state-reading one's model is read on its first use). */
export interface ActiveCalibration {
  id: string;
  model: string;
  fingerprint: string;
  mode: CalibrationMode;
  map: CalibrationMap;
  /** True when it answers with a state-reading model (`learnedModel`), not with `map`. */
  learned: boolean;
}

/** The columns an API row reads (not the model: up to 256 KiB a row). */
export const ROW_COLUMNS =
  "id, account_id, evaluation_id, question_id, model, fingerprint, mode, question, method, map, features, n, metrics, active, created_at, deactivated_at, status, error";

const ms = (v: unknown): number | null =>
  v === null || v === undefined ? null : new Date(String(v)).getTime();

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const truthy = (v: unknown) => v === true || v === "t" || v === "true";

function statusOf(r: Record<string, unknown>): CalibrationStatus {
  if (r.status === "failed") return "failed";
  if (truthy(r.active)) return "active";
  return r.status === "fitting" && (r.deactivated_at === null || r.deactivated_at === undefined)
    ? "fitting"
    : "inactive";
}

/** A row as the API reads it (ROW_COLUMNS). */
export function toRow(r: Record<string, unknown>): CalibrationRow {
  const method = text(r.method);
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    evaluationId: String(r.evaluation_id),
    questionId: String(r.question_id),
    model: String(r.model),
    fingerprint: text(r.fingerprint),
    mode: r.mode === "test" ? "test" : "live",
    question: text(r.question),
    method:
      method === null
        ? null
        : method === "temperature" || method === "state_words"
          ? method
          : "temperature_bias",
    map: r.map === null || r.map === undefined ? null : (JSON.parse(String(r.map)) as CalibrationMap),
    features: text(r.features),
    n: r.n === null || r.n === undefined ? null : Number(r.n),
    metrics: text(r.metrics),
    status: statusOf(r),
    error: text(r.error),
    active: truthy(r.active),
    createdAt: ms(r.created_at)!,
    deactivatedAt: ms(r.deactivated_at),
  };
}

/**
 * A fit's stored fields as statement parameters, in the one order every write of a fit lists its columns in:
 * question, method, map, n, metrics, features, learned.
 */
export function fittedValues(c: FittedCalibration): unknown[] {
  return [c.question, c.method, JSON.stringify(c.map), c.n, c.metrics, c.features ?? null, c.learned ?? null];
}

/**
 * SQL condition: the account ($1) stays within MAX_ACTIVE_CALIBRATIONS with one more active calibration, not
 * counting the one of (version $2, fingerprint $3, mode `mode`) it replaces.
 */
export const roomForOneMore = (mode: string) =>
  `(SELECT count(*) FROM calibrations
     WHERE account_id = $1 AND active AND NOT (model = $2 AND fingerprint = $3 AND mode = ${mode})) < ${MAX_ACTIVE_CALIBRATIONS}`;

/**
 * Inserts `c` as the account's active calibration for its (version, fingerprint, mode), replacing the active one
 * there (the other mode's stays), unless the account would pass MAX_ACTIVE_CALIBRATIONS: null then, and nothing changed. The account's
 * row is locked first, so concurrent creates of one account count one after the other.
 */
export async function insertCalibration(db: Database, c: FittedCalibration): Promise<CalibrationRow | null> {
  const sql = db.sql();
  const results = await sql.transaction([
    sql.query(
      "UPDATE accounts SET calibrations_generation = calibrations_generation + 1 WHERE id = $1 RETURNING id",
      [c.accountId],
    ),
    sql.query(
      `UPDATE calibrations SET active = false, deactivated_at = now()
        WHERE account_id = $1 AND model = $2 AND fingerprint = $3 AND mode = $4 AND active AND ${roomForOneMore("$4")}`,
      [c.accountId, c.model, c.fingerprint, c.mode],
    ),
    sql.query(
      `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n, metrics, features, learned, mode)
       SELECT $4, $1, $5, $6, $2, $3, $7, $8, $9, $10, $11, $12, $13, $14 WHERE ${roomForOneMore("$14")} RETURNING ${ROW_COLUMNS}`,
      [c.accountId, c.model, c.fingerprint, c.id, c.evaluationId, c.questionId, ...fittedValues(c), c.mode],
    ),
  ]);
  const inserted = results[2] as Record<string, unknown>[];
  return inserted[0] ? toRow(inserted[0]) : null;
}

/** What a caller sees: one mode's calibrations (an API key's), or all of them (a console session's: null). */
export type ModeScope = CalibrationMode | null;

/** Newest first, `limit` per page after `startingAfter` (an id), of the modes `sees`. */
export async function listCalibrations(
  db: Database,
  accountId: string,
  sees: ModeScope,
  limit: number,
  startingAfter: string | null,
): Promise<{ data: CalibrationRow[]; hasMore: boolean }> {
  const rows = (await db.sql().query(
    `SELECT ${ROW_COLUMNS} FROM calibrations WHERE account_id = $1 AND ($2::text IS NULL OR id < $2)
        AND ($4::text IS NULL OR mode = $4)
      ORDER BY id DESC LIMIT $3`,
    [accountId, startingAfter, limit + 1, sees],
  )) as Record<string, unknown>[];
  return { data: rows.slice(0, limit).map(toRow), hasMore: rows.length > limit };
}

/** One calibration of the account of the modes `sees`, active or not. */
export async function findCalibration(
  db: Database,
  accountId: string,
  id: string,
  sees: ModeScope,
): Promise<CalibrationRow | null> {
  const rows = (await db
    .sql()
    .query(
      `SELECT ${ROW_COLUMNS} FROM calibrations WHERE id = $1 AND account_id = $2 AND ($3::text IS NULL OR mode = $3)`,
      [id, accountId, sees],
    )) as Record<string, unknown>[];
  return rows[0] ? toRow(rows[0]) : null;
}

/**
 * Deactivates one calibration of the modes `sees`, or stops one still fitting (a deactivated or failed one stays
 * as it is); the row after, or null when not found.
 */
export async function deactivateCalibration(
  db: Database,
  accountId: string,
  id: string,
  sees: ModeScope,
): Promise<CalibrationRow | null> {
  const sql = db.sql();
  // A fitting one is deleted too: the runner never fits it (its completion needs `deactivated_at` null).
  const mine = `id = $2 AND account_id = $1 AND (active OR (status = 'fitting' AND deactivated_at IS NULL))
    AND ($3::text IS NULL OR mode = $3)`;
  await sql.transaction([
    sql.query(
      `UPDATE accounts SET calibrations_generation = calibrations_generation + 1
        WHERE id = $1 AND EXISTS (SELECT 1 FROM calibrations WHERE ${mine})`,
      [accountId, id, sees],
    ),
    sql.query(`UPDATE calibrations SET active = false, deactivated_at = now() WHERE ${mine}`, [
      accountId,
      id,
      sees,
    ]),
  ]);
  return findCalibration(db, accountId, id, sees);
}

/**
 * Deletes calibrations inactive for longer than `days` (the cron sweep; a replay needs one at most the
 * idempotency window after its original, far less); how many.
 */
export async function deleteInactiveCalibrations(db: Database, days: number): Promise<number> {
  const rows = (await db
    .sql()
    .query(
      "DELETE FROM calibrations WHERE NOT active AND deactivated_at < now() - make_interval(days => $1) RETURNING id",
      [days],
    )) as unknown[];
  return rows.length;
}

/** Every active calibration of the account, both modes (at most MAX_ACTIVE_CALIBRATIONS): what its decides look up. */
export async function activeCalibrations(db: Database, accountId: string): Promise<ActiveCalibration[]> {
  const rows = (await db
    .sql()
    .query(
      "SELECT id, model, fingerprint, mode, map, learned IS NOT NULL AS learned FROM calibrations WHERE account_id = $1 AND active",
      [accountId],
    )) as Record<string, unknown>[];
  return rows.map((r) => ({
    id: String(r.id),
    model: String(r.model),
    fingerprint: String(r.fingerprint),
    mode: r.mode === "test" ? "test" : "live",
    map: JSON.parse(String(r.map)) as CalibrationMap,
    learned: r.learned === true || r.learned === "t" || r.learned === "true",
  }));
}

/**
 * State-reading models by id, active or not (a row's model never changes, so a decide's isolate may keep it):
 * id → the model's JSON text; ids without one are absent.
 */
export async function learnedModels(
  db: Database,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = (await db
    .sql()
    .query(
      "SELECT id, learned FROM calibrations WHERE account_id = $1 AND id = ANY($2::text[]) AND learned IS NOT NULL",
      [accountId, ids],
    )) as Record<string, unknown>[];
  return new Map(rows.map((r) => [String(r.id), String(r.learned)]));
}

/** Maps by id, active or not, of the account (a replay's: the calibrations its original answered with). */
export async function calibrationMaps(
  db: Database,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, { map: CalibrationMap; learned: boolean }>> {
  const rows = (await db
    .sql()
    .query(
      "SELECT id, map, learned IS NOT NULL AS learned FROM calibrations WHERE account_id = $1 AND id = ANY($2::text[])",
      [accountId, ids],
    )) as Record<string, unknown>[];
  return new Map(
    rows.map((r) => [
      String(r.id),
      {
        map: JSON.parse(String(r.map)) as CalibrationMap,
        learned: r.learned === true || r.learned === "t" || r.learned === "true",
      },
    ]),
  );
}

/**
 * Stores `c` inactive (issue 51: a review loop's fit, applied only when the user confirms or the rule's auto-apply
 * rule holds), deactivated now so that, never applied, the sweep deletes it with the other inactive ones.
 */
export async function insertInactiveCalibration(db: Database, c: FittedCalibration): Promise<CalibrationRow> {
  const rows = (await db.sql().query(
    `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n,
                               metrics, features, learned, mode, active, deactivated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, false, now()) RETURNING ${ROW_COLUMNS}`,
    [c.id, c.accountId, c.evaluationId, c.questionId, c.model, c.fingerprint, ...fittedValues(c), c.mode],
  )) as Record<string, unknown>[];
  return toRow(rows[0]!);
}

/**
 * Makes an inactive calibration of the modes `sees` the active one of its (version, fingerprint, mode), replacing
 * the one there, unless the account would pass MAX_ACTIVE_CALIBRATIONS. The row after (unchanged when refused or
 * already active), null when not found.
 */
export async function activateCalibrationRow(
  db: Database,
  accountId: string,
  id: string,
  sees: ModeScope,
): Promise<{ row: CalibrationRow; refused: boolean; unfitted?: boolean } | null> {
  const found = await findCalibration(db, accountId, id, sees);
  if (!found) return null;
  if (found.active) return { row: found, refused: false };
  if (found.status === "fitting" || found.status === "failed")
    return { row: found, refused: false, unfitted: true };
  const sql = db.sql();
  const room = roomForOneMore("$4");
  const params = [accountId, found.model, found.fingerprint, found.mode, id];
  const results = await sql.transaction([
    sql.query(
      `UPDATE accounts SET calibrations_generation = calibrations_generation + 1 WHERE id = $1 AND ${room}`,
      params.slice(0, 4),
    ),
    sql.query(
      `UPDATE calibrations SET active = false, deactivated_at = now()
        WHERE account_id = $1 AND model = $2 AND fingerprint = $3 AND mode = $4 AND active AND id <> $5 AND ${room}`,
      params,
    ),
    sql.query(
      `UPDATE calibrations SET active = true, deactivated_at = NULL
        WHERE id = $5 AND account_id = $1 AND NOT active AND ${room} RETURNING id`,
      params,
    ),
  ]);
  const refused = (results[2] as unknown[]).length === 0;
  return { row: (await findCalibration(db, accountId, id, sees))!, refused };
}
