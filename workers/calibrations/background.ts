import { ulid } from "ulid";
import { MAX_ACTIVE_CALIBRATIONS } from "../../schema/calibrations";
import type { NextRun } from "../clients/runner";
import type { Services } from "../context/services";
import { ApiError } from "../errors";
import { errorText, logEvent } from "../observability/log";
import {
  claimFitting,
  completeFitting,
  type FitEvent,
  type FittingCalibration,
  failFitting,
  giveBackAttempt,
} from "../stores/calibration-fitting";
import type { CalibrationRow } from "../stores/calibrations";
import { fitQuestion } from "./fit-question";
import { calibrationJson } from "./json";
import { FITTER, type FitResult, fitOnce } from "./reuse";

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

/**
 * The account webhook event of a background fit's end (`calibration.ready` or `calibration.failed`), its `data`
 * the Calibration object as GET /v1/calibrations/{id} then answers. Only background fits send one: a create that
 * fits in the request answers the object itself.
 */
function fitEvent(type: FitEvent["type"], row: CalibrationRow, at: number): FitEvent {
  const id = `evt_${ulid(at)}`;
  const created = Math.floor(at / 1000);
  return {
    id,
    type,
    payload: `{"id":"${id}","object":"event","type":"${type}","created":${created},"data":{"object":${calibrationJson(row)}}}`,
  };
}

/** The job as its row will read once ended (fitted: with `fit`'s fields; failed: with `error`). */
function endedRow(
  job: FittingCalibration,
  end: { fit: FitResult } | { error: string; at: number },
): CalibrationRow {
  const base = { id: job.id, accountId: job.accountId, mode: job.mode, createdAt: job.createdAt };
  if ("fit" in end)
    return { ...end.fit, ...base, status: "active", error: null, active: true, deactivatedAt: null };
  return {
    ...base,
    evaluationId: job.evaluationId,
    questionId: job.questionId,
    model: job.model,
    fingerprint: null,
    question: null,
    method: null,
    map: null,
    features: null,
    learned: null,
    n: null,
    metrics: null,
    status: "failed",
    error: end.error,
    active: false,
    deactivatedAt: end.at,
  };
}

/** Ends the job as `failed` with `error`, queueing its `calibration.failed` event. */
async function fail(db: BackgroundFitDeps["db"], job: FittingCalibration, error: string): Promise<void> {
  const at = Date.now();
  const ended = { accountId: job.accountId, id: job.id, error, at };
  await failFitting(db, ended, fitEvent("calibration.failed", endedRow(job, { error, at }), at));
}

/** One calibration's fit on the runner: active (replacing the question's previous one), or failed with its 4xx. */
async function fitOne(deps: BackgroundFitDeps, job: FittingCalibration): Promise<void> {
  const { db } = deps;
  if (job.attempts > MAX_FIT_TRIES || Date.now() - job.createdAt > FIT_DEADLINE_MS) {
    await fail(
      db,
      job,
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
    const event = fitEvent("calibration.ready", endedRow(job, { fit }), Date.now());
    const stored = await completeFitting(
      db,
      { ...fit, id: job.id, accountId: job.accountId, mode: job.mode },
      event,
    );
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
  if (error !== null) await fail(db, job, error);
  logEvent("info", "calibration_fitted", {
    account_id: job.accountId,
    calibration_id: job.id,
    outcome: error === null ? "done" : "failed",
  });
}

/**
 * The runner's slice for calibrations: the account's oldest fitting one, fitted (one fit per alarm: a fit is
 * seconds of synchronous CPU, so the evaluations and batches beside it wait for one fit at most). Returns when
 * to run again: at once after a fit (its event is due, and more may be fitting), else null.
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
  return Date.now();
}
