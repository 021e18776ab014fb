import type { Database } from "./db";

/** The answer bytes first recorded for an exact version on a numerics class. */
export interface Baseline {
  answers: string;
  recordedFrom: string;
}

/**
 * The recorded answers of (`model`, `numericsClass`); when none is recorded yet, `candidate` is recorded
 * (first sight) and returned with `recorded: true`. One statement, so two runs racing record one of them.
 */
export async function baselineOrRecord(
  db: Database,
  model: string,
  numericsClass: string,
  candidate: Baseline,
): Promise<Baseline & { recorded: boolean }> {
  const rows = (await db.sql().query(
    `WITH ins AS (
       INSERT INTO canary_baselines (model, numerics_class, answers, recorded_from) VALUES ($1, $2, $3, $4)
       ON CONFLICT (model, numerics_class) DO NOTHING RETURNING answers, recorded_from)
     SELECT answers, recorded_from, true AS recorded FROM ins
     UNION ALL
     SELECT answers, recorded_from, false AS recorded FROM canary_baselines
     WHERE model = $1 AND numerics_class = $2 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [model, numericsClass, candidate.answers, candidate.recordedFrom],
  )) as { answers: string; recorded_from: string; recorded: boolean | string }[];
  const r = rows[0];
  return r
    ? {
        answers: r.answers,
        recordedFrom: r.recorded_from,
        recorded: r.recorded === true || r.recorded === "t",
      }
    : { ...candidate, recorded: false };
}

/** Forgets recorded answers (all, or one version, or one version × class); returns how many. */
export async function resetBaselines(
  db: Database,
  filter: { model?: string; numericsClass?: string },
): Promise<number> {
  const rows = (await db.sql().query(
    `DELETE FROM canary_baselines WHERE ($1::text IS NULL OR model = $1) AND ($2::text IS NULL OR numerics_class = $2)
     RETURNING model`,
    [filter.model ?? null, filter.numericsClass ?? null],
  )) as unknown[];
  return rows.length;
}
