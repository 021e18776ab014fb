import { kickRunner } from "../clients/runner";
import type { Env } from "../env";
import { logEvent } from "../observability/log";
import { deleteOrphanFits } from "../stores/calibration-fits";
import { accountsWithFitting } from "../stores/calibration-fitting";
import { deleteInactiveCalibrations } from "../stores/calibrations";
import { database } from "../stores/db";

/**
 * Days an inactive calibration (replaced or deleted) stays readable before the sweep deletes it (issue 50:
 * repeated creates no longer grow the database without bound). A replay needs the calibration its original
 * answered with only while the original's idempotency record lives — 24 hours (spec: "Idempotency key
 * retention") — so 30 days keeps every replay whole.
 */
export const INACTIVE_CALIBRATION_RETENTION_DAYS = 30;

/**
 * The cron's part for calibrations: delete those inactive for longer than the retention, and the kept fits of
 * evaluations that are gone (deleted, or past their own 30 days); and kick the runner of every account with a
 * calibration still fitting (the safety net when a runner's alarm was lost).
 */
export async function sweepCalibrations(env: Env): Promise<void> {
  const db = database(env);
  try {
    const deleted = await deleteInactiveCalibrations(db, INACTIVE_CALIBRATION_RETENTION_DAYS);
    const fits = await deleteOrphanFits(db);
    if (deleted > 0 || fits > 0) logEvent("info", "calibrations_deleted", { deleted, fits });
    for (const accountId of await accountsWithFitting(db)) await kickRunner(env, accountId);
  } catch (err) {
    logEvent("error", "calibration_sweep_failed", { error: err instanceof Error ? err.name : String(err) });
  }
}
