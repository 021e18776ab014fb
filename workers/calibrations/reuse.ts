import type { ErrorCode } from "../../schema/errors";
import { ApiError } from "../errors";
import { type FitKey, keepFit, readFit } from "../stores/calibration-fits";
import type { FittedCalibration } from "../stores/calibrations";
import type { Database } from "../stores/db";

/**
 * The fitting code's version: part of a kept fit's key, so a deploy that fits differently fits again. Change it
 * whenever cross-validate.ts, fit.ts, labels.ts or metrics.ts would answer differently on the same labels.
 */
export const FITTER = "issue-49";

/** A fit's result that does not depend on who asked: what a preview shows and a create stores. */
export type FitResult = Omit<FittedCalibration, "id" | "accountId" | "mode">;

type Outcome = { fit: FitResult } | { error: { code: ErrorCode; param?: string; message: string } };

/**
 * The fit of `key`'s evaluation and question: the kept one (issue 50: a preview then a create, or a create
 * again, reads the labels and fits once), else `compute`'s, kept. A 4xx `compute` throws (too few labels, no
 * gain, an outdated evaluation) depends only on the same immutable items, so it is kept and thrown again too;
 * anything else (a store outage) is not kept.
 */
export async function fitOnce(
  db: Database,
  key: FitKey,
  compute: () => Promise<FitResult>,
): Promise<FitResult> {
  const kept = await readFit(db, key);
  if (kept !== null) return answer(JSON.parse(kept) as Outcome);
  let outcome: Outcome;
  try {
    outcome = { fit: await compute() };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    outcome = { error: { code: err.code, param: err.options.param, message: err.message } };
  }
  await keepFit(db, key, JSON.stringify(outcome));
  return answer(outcome);
}

function answer(o: Outcome): FitResult {
  if ("error" in o) throw new ApiError(o.error.code, { param: o.error.param, message: o.error.message });
  return o.fit;
}
