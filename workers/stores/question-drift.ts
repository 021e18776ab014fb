import { asRows, type Database, isoTime } from "./db";

/** A question's drift settings (none set: the defaults). */
export interface DriftSettings {
  threshold: number | null;
  referenceSince: number | null;
}

type Mode = "live" | "test";

/** The question's settings, or nulls. */
export async function driftSettings(
  db: Database,
  accountId: string,
  mode: Mode,
  id: string,
): Promise<DriftSettings> {
  const r = asRows(
    await db
      .sql()
      .query(
        "SELECT threshold, reference_since FROM question_drift WHERE account_id = $1 AND mode = $2 AND question_id = $3",
        [accountId, mode, id],
      ),
  );
  const x = r[0];
  return {
    threshold: x?.threshold == null ? null : Number(x.threshold),
    referenceSince: x?.reference_since == null ? null : new Date(String(x.reference_since)).getTime(),
  };
}

/**
 * Sets the threshold (null: keep it) and/or restarts the reference at `resetAt` (null: keep it); a reset also
 * re-arms every version's crossing (its next evaluation starts from below).
 */
export async function updateDriftSettings(
  db: Database,
  accountId: string,
  mode: Mode,
  id: string,
  change: { threshold: number | null; resetAt: number | null },
): Promise<void> {
  const sql = db.sql();
  await sql.transaction([
    sql.query(
      `INSERT INTO question_drift (account_id, mode, question_id, threshold, reference_since)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, mode, question_id) DO UPDATE
          SET threshold = coalesce(EXCLUDED.threshold, question_drift.threshold),
              reference_since = coalesce(EXCLUDED.reference_since, question_drift.reference_since)`,
      [accountId, mode, id, change.threshold, change.resetAt === null ? null : isoTime(change.resetAt)],
    ),
    sql.query(
      `DELETE FROM question_drift_versions
        WHERE account_id = $1 AND mode = $2 AND question_id = $3 AND $4::boolean`,
      [accountId, mode, id, change.resetAt !== null],
    ),
  ]);
}

/**
 * Records a version's evaluation; answers true only when this evaluation crossed the threshold upwards (it was
 * below, or never evaluated, and is now above): the one moment a `question.drifted` event is due. The event is
 * inserted by the same statement that flips the state (when the account has an endpoint), and the flip is a
 * conditional update, so two evaluations at once still send one.
 */
export async function recordDriftEvaluation(
  db: Database,
  key: { accountId: string; mode: Mode; id: string; model: string },
  value: number,
  above: boolean,
  evaluatedAt: number,
  event: { id: string; payload: string },
): Promise<boolean> {
  const sql = db.sql();
  const k = [key.accountId, key.mode, key.id, key.model];
  const where = "account_id = $1 AND mode = $2 AND question_id = $3 AND model = $4";
  await sql.query(
    `INSERT INTO question_drift_versions (account_id, mode, question_id, model, above, value, evaluated_at)
     VALUES ($1, $2, $3, $4, false, $5, $6) ON CONFLICT DO NOTHING`,
    [...k, value, isoTime(evaluatedAt)],
  );
  if (!above) {
    await sql.query(
      `UPDATE question_drift_versions SET above = false, value = $5, evaluated_at = $6 WHERE ${where}`,
      [...k, value, isoTime(evaluatedAt)],
    );
    return false;
  }
  const r = asRows(
    await sql.query(
      `WITH flip AS (
         UPDATE question_drift_versions SET above = true, value = $5, evaluated_at = $6
          WHERE ${where} AND NOT above RETURNING 1),
       ev AS (
         INSERT INTO webhook_deliveries (id, account_id, batch_id, type, payload)
         SELECT $7, $1, NULL, 'question.drifted', $8 FROM flip
          WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.account_id = $1))
       SELECT count(*)::int AS crossed FROM flip`,
      [...k, value, isoTime(evaluatedAt), event.id, event.payload],
    ),
  );
  if (Number(r[0]?.crossed) > 0) return true;
  await sql.query(`UPDATE question_drift_versions SET value = $5, evaluated_at = $6 WHERE ${where}`, [
    ...k,
    value,
    isoTime(evaluatedAt),
  ]);
  return false;
}

/** The reference a version last read from a calibration's evaluation (null: none kept). */
export async function storedReference(
  db: Database,
  key: { accountId: string; mode: Mode; id: string; model: string },
): Promise<{ calibration: string; counts: number[] } | null> {
  const r = asRows(
    await db.sql().query(
      `SELECT reference_calibration, reference_counts FROM question_drift_versions
        WHERE account_id = $1 AND mode = $2 AND question_id = $3 AND model = $4 AND reference_calibration IS NOT NULL`,
      [key.accountId, key.mode, key.id, key.model],
    ),
  );
  const x = r[0];
  if (!x) return null;
  const counts = Array.isArray(x.reference_counts) ? x.reference_counts.map(Number) : [];
  return { calibration: String(x.reference_calibration), counts };
}

/** Keeps the reference read from `calibration`'s evaluation for the version (read once per calibration). */
export async function storeReference(
  db: Database,
  key: { accountId: string; mode: Mode; id: string; model: string },
  calibration: string,
  counts: readonly number[],
  at: number,
): Promise<void> {
  await db.sql().query(
    `INSERT INTO question_drift_versions (account_id, mode, question_id, model, above, evaluated_at,
                                          reference_calibration, reference_counts)
     VALUES ($1, $2, $3, $4, false, $5, $6, $7::bigint[])
     ON CONFLICT (account_id, mode, question_id, model) DO UPDATE
        SET reference_calibration = EXCLUDED.reference_calibration, reference_counts = EXCLUDED.reference_counts`,
    [key.accountId, key.mode, key.id, key.model, isoTime(at), calibration, counts],
  );
}
