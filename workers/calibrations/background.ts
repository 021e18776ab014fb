import { MAX_ACTIVE_CALIBRATIONS } from "../../schema/calibrations";
import type { NextRun } from "../clients/runner";
import type { Services } from "../context/services";
import { ApiError } from "../errors";
import { errorText, logEvent } from "../observability/log";
import {
  claimFitting,
  completeFitting,
  type FittingCalibration,
  failFitting,
  giveBackAttempt,
  hasFitting,
} from "../stores/calibration-fitting";
import { fitQuestion } from "./fit-question";
import { FITTER, fitOnce } from "./reuse";

/**
 * A background fit's cap (issue 49): tries (a fit cut short — the runner's CPU limit, a restart — is tried again
 * at most this often), and the time from its create after which a fit not yet finished is `failed`. The work of
 * one try is bounded by its input (≤ 1,000 items, ≤ 2,048 words a state: 28 s measured at worst, docs/decisions.md);
 * a Worker's clock does not move during synchronous CPU, so the cap is checked between tries, not inside one.
 */
export const MAX_FIT_TRIES = 3;
export const FIT_DEADLINE_MS = 10 * 60_000;

/** What a background fit uses: the database and the decide path's calibration cache. */
export interface BackgroundFitDeps {
  db: Services["db"];
  calibrations: Pick<Services["calibrations"], "invalidate">;
}

const errorJson = (code: string, message: string, param?: string) =>
  JSON.stringify({ code, ...(param !== undefined && { param }), message });

/** One calibration's fit on the runner: active (replacing the question's previous one), or failed with its 4xx. */
async function fitOne(deps: BackgroundFitDeps, job: FittingCalibration): Promise<void> {
  const { db } = deps;
  if (job.attempts > MAX_FIT_TRIES || Date.now() - job.createdAt > FIT_DEADLINE_MS) {
    await failFitting(
      db,
      job.accountId,
      job.id,
      errorJson(
        "internal_error",
        `The fit did not finish within ${MAX_FIT_TRIES} tries and ${FIT_DEADLINE_MS / 60_000} minutes: create it again; nothing was applied.`,
      ),
    );
    return;
  }
  const input = { evaluationId: job.evaluationId, questionId: job.questionId };
  const key = { ...input, accountId: job.accountId, fitter: FITTER };
  let error: string | null = null;
  try {
    const fit = await fitOnce(db, key, () => fitQuestion(deps, job.model, input));
    const stored = await completeFitting(db, {
      ...fit,
      id: job.id,
      accountId: job.accountId,
      mode: job.mode,
    });
    if (stored === "active") deps.calibrations.invalidate(job.accountId);
    if (stored === "full")
      error = errorJson(
        "calibration_limit_reached",
        `The account has ${MAX_ACTIVE_CALIBRATIONS} active calibrations: delete one first.`,
      );
  } catch (err) {
    // The 4xx a synchronous create would have answered; anything else (a store outage) is tried again.
    if (!(err instanceof ApiError) || err.status >= 500) {
      await giveBackAttempt(db, job.id).catch(() => {});
      throw err;
    }
    error = errorJson(err.code, err.message, err.options.param);
  }
  if (error !== null) await failFitting(db, job.accountId, job.id, error);
  logEvent("info", "calibration_fitted", {
    account_id: job.accountId,
    calibration_id: job.id,
    outcome: error === null ? "done" : "failed",
  });
}

/**
 * The runner's slice for calibrations: the account's oldest fitting one, fitted (one fit per alarm: a fit is
 * seconds of synchronous CPU, so the evaluations and batches beside it wait for one fit at most). Returns when
 * to run again: at once while more are fitting, else null.
 */
export async function runCalibrationSlice(deps: BackgroundFitDeps, accountId: string): Promise<NextRun> {
  const job = await claimFitting(deps.db, accountId);
  if (!job) return null;
  try {
    await fitOne(deps, job);
  } catch (err) {
    logEvent("error", "calibration_fit_not_finished", {
      account_id: accountId,
      calibration_id: job.id,
      error: errorText(err),
    });
    throw err;
  }
  return (await hasFitting(deps.db, accountId)) ? Date.now() : null;
}
