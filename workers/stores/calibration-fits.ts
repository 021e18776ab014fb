import type { Database } from "./db";

/** Which fit: a done evaluation's items never change, so these name its result (with the fitter's version). */
export interface FitKey {
  accountId: string;
  evaluationId: string;
  questionId: string;
  /** The fitting code's version (workers/calibrations/service.ts `FITTER`): a new fitter fits again. */
  fitter: string;
}

/** A kept fit's outcome (JSON text), or null when this evaluation and question were never fitted by `fitter`. */
export async function readFit(db: Database, k: FitKey): Promise<string | null> {
  const rows = (await db
    .sql()
    .query(
      "SELECT outcome FROM calibration_fits WHERE evaluation_id = $1 AND question_id = $2 AND fitter = $3 AND account_id = $4",
      [k.evaluationId, k.questionId, k.fitter, k.accountId],
    )) as Record<string, unknown>[];
  return rows[0] ? String(rows[0].outcome) : null;
}

/** Keeps a fit's outcome (the first one kept wins: two concurrent fits of one key compute the same). */
export async function keepFit(db: Database, k: FitKey, outcome: string): Promise<void> {
  await db.sql().query(
    `INSERT INTO calibration_fits (evaluation_id, question_id, fitter, account_id, outcome)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
    [k.evaluationId, k.questionId, k.fitter, k.accountId, outcome],
  );
}

/** Deletes the fits of evaluations that are gone (deleted or past their retention); how many. */
export async function deleteOrphanFits(db: Database): Promise<number> {
  const rows = (await db.sql().query(
    `DELETE FROM calibration_fits f WHERE NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.id = f.evaluation_id)
     RETURNING evaluation_id`,
    [],
  )) as unknown[];
  return rows.length;
}
