import { ulid } from "ulid";
import {
  CALIBRATION_ID_PATTERN,
  MAX_ACTIVE_CALIBRATIONS,
  MIN_CHECK_LABELS_EACH,
  MIN_ITEMS,
} from "../../schema/calibrations";
import { wordsModelJson } from "../../schema/learned/model";
import type { Services } from "../context/services";
import { questionFingerprint } from "../decide/question-fingerprint";
import { ApiError } from "../errors";
import type { PageQuery } from "../http/list-query";
import {
  type CalibrationRow,
  deactivateCalibration,
  findCalibration,
  insertCalibration,
  listCalibrations as selectCalibrations,
} from "../stores/calibrations";
import { findEvaluation } from "../stores/evaluations";
import { chooseFit } from "./cross-validate";
import { type QuestionLabels, questionLabels } from "./labels";
import { calibrationEvidence, featuresJson } from "./metrics";

/** 422 `too_few_labels` unless a check has 30 of each answer, a pick or rate 50 labelled items. */
function checkEnoughLabels(labels: QuestionLabels, questionId: string): void {
  const { question: q, items } = labels;
  if (q.type === "check") {
    const yes = items.filter((e) => e.y === 0).length;
    if (yes < MIN_CHECK_LABELS_EACH || items.length - yes < MIN_CHECK_LABELS_EACH)
      throw new ApiError("too_few_labels", {
        param: "question",
        message: `\`${questionId}\` has ${yes} items expected yes and ${items.length - yes} expected no: a check is calibrated on at least ${MIN_CHECK_LABELS_EACH} of each.`,
      });
  } else if (items.length < MIN_ITEMS)
    throw new ApiError("too_few_labels", {
      param: "question",
      message: `\`${questionId}\` has ${items.length} labelled items: a ${q.type} is calibrated on at least ${MIN_ITEMS}.`,
    });
}

/** A fit made and measured, not yet stored. */
type Fitted = Omit<CalibrationRow, "active" | "createdAt" | "deactivatedAt">;

/** What the calibration operations use: the database and the decide path's calibration cache. */
export type CalibrationDeps = Pick<Services, "db" | "calibrations">;

/** The body of createCalibration and previewCalibration, read and checked: an evaluation and a question id. */
export interface CalibrationInput {
  evaluationId: string;
  questionId: string;
}

/**
 * The evaluation (404, 409 unless done), the question's labels (422), the fit and its cross-validated evidence
 * (422 when it gains nothing): what createCalibration stores and preview shows.
 */
async function fitLabels(deps: CalibrationDeps, accountId: string, input: CalibrationInput): Promise<Fitted> {
  const { evaluationId, questionId } = input;
  const evaluation = await findEvaluation(deps.db, accountId, evaluationId);
  if (!evaluation)
    throw new ApiError("evaluation_not_found", {
      param: "evaluation",
      message: `No evaluation \`${evaluationId}\` in this account.`,
    });
  if (evaluation.status !== "done")
    throw new ApiError("evaluation_not_done", {
      param: "evaluation",
      message: `The evaluation is \`${evaluation.status}\`: calibrate once it is \`done\`.`,
    });
  const labels = await questionLabels(deps.db, evaluationId, questionId);
  checkEnoughLabels(labels, questionId);
  const q = labels.question;
  const k = q.type === "check" ? 2 : q.type === "pick" ? q.options.length : q.levels.length;
  const fit = chooseFit(q.type, k, labels.items, { readState: true });
  if (!(fit.nllAfter < fit.nllBefore))
    throw new ApiError("calibration_no_gain", {
      param: "question",
      message: `Cross-validated NLL ${fit.nllAfter.toFixed(4)} with the fitted map against ${fit.nllBefore.toFixed(4)} with ${evaluation.model}'s own: the version is already as calibrated on these labels; nothing was applied.`,
    });
  return {
    id: `calib_${ulid()}`,
    accountId,
    evaluationId,
    questionId,
    model: evaluation.model,
    fingerprint: await questionFingerprint(q),
    question: labels.definition,
    method: fit.method,
    map: fit.map,
    n: labels.items.length,
    metrics: JSON.stringify(calibrationEvidence(q, fit, labels.items)),
    features: featuresJson(fit),
    learned: fit.model ? wordsModelJson(fit.model) : null,
  };
}

/**
 * createCalibration: the fit (see `fitLabels`), then the one active calibration of its (version, question) for the
 * account, replacing the one there (409 past the cap).
 */
export async function createCalibration(
  deps: CalibrationDeps,
  accountId: string,
  input: CalibrationInput,
): Promise<CalibrationRow> {
  const row = await insertCalibration(deps.db, await fitLabels(deps, accountId, input));
  deps.calibrations.invalidate(accountId);
  if (!row)
    throw new ApiError("calibration_limit_reached", {
      message: `The account has ${MAX_ACTIVE_CALIBRATIONS} active calibrations: delete one first.`,
    });
  return row;
}

/**
 * previewCalibration: the same fit and metrics as createCalibration, stored nowhere and applied to nothing
 * (`active` false): what the console shows before the customer applies it.
 */
export async function previewCalibration(
  deps: CalibrationDeps,
  accountId: string,
  input: CalibrationInput,
): Promise<CalibrationRow> {
  const fitted = await fitLabels(deps, accountId, input);
  return { ...fitted, active: false, createdAt: Date.now(), deactivatedAt: null };
}

/** listCalibrations: newest first, active or not. */
export function listCalibrations(
  deps: CalibrationDeps,
  accountId: string,
  page: PageQuery,
): Promise<{ data: CalibrationRow[]; hasMore: boolean }> {
  return selectCalibrations(deps.db, accountId, page.limit, page.after);
}

const notFound = (id: string) =>
  new ApiError("calibration_not_found", {
    param: "id",
    message: `No calibration \`${id}\` in this account.`,
  });

/** getCalibration: active or not (a replaced or deleted one stays readable). */
export async function getCalibration(
  deps: CalibrationDeps,
  accountId: string,
  id: string,
): Promise<CalibrationRow> {
  const row = CALIBRATION_ID_PATTERN.test(id) ? await findCalibration(deps.db, accountId, id) : null;
  if (!row) throw notFound(id);
  return row;
}

/** deleteCalibration: deactivates it (decides stop using it within about a second; replays keep it). */
export async function deleteCalibration(
  deps: CalibrationDeps,
  accountId: string,
  id: string,
): Promise<CalibrationRow> {
  const row = CALIBRATION_ID_PATTERN.test(id) ? await deactivateCalibration(deps.db, accountId, id) : null;
  if (!row) throw notFound(id);
  deps.calibrations.invalidate(accountId);
  return row;
}
