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
import type { MoneySubject } from "../limits/key-limits";
import {
  activateCalibrationRow,
  type CalibrationMode,
  type CalibrationRow,
  deactivateCalibration,
  findCalibration,
  insertCalibration,
  insertInactiveCalibration,
  type ModeScope,
  listCalibrations as selectCalibrations,
} from "../stores/calibrations";
import { findEvaluation } from "../stores/evaluations";
import { chooseFit } from "./cross-validate";
import { type QuestionLabels, questionLabels } from "./labels";
import { calibrationEvidence, featuresJson } from "./metrics";
import { FITTER, type FitResult, fitOnce } from "./reuse";

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

/** What the calibration operations use: the database, the decide path's calibration cache, the rate limiter. */
export type CalibrationDeps = Pick<Services, "db" | "calibrations" | "limits">;

/**
 * Who calls (issue 50): the account; the mode a calibration it creates gets (a test key's → test; a live key's or
 * the console's → live); which modes it sees, lists and deletes (a key its own; the console null: all); whose
 * requests per minute a fit counts against.
 */
export interface CalibrationOwner {
  accountId: string;
  mode: CalibrationMode;
  sees: ModeScope;
  subject: MoneySubject;
}

/** The body of createCalibration and previewCalibration, read and checked: an evaluation and a question id. */
export interface CalibrationInput {
  evaluationId: string;
  questionId: string;
}

/**
 * A fit counts one request against the caller's requests per minute (429 `requests_per_minute`; issue 50: each
 * reads up to 20 pages of items and fits for up to seconds of CPU), then the evaluation (404, 409 unless done),
 * then the fit of that evaluation and question: the kept one, else the question's labels (422), the fit and its
 * cross-validated evidence (422 when it gains nothing), kept. What createCalibration stores and preview shows.
 */
async function fitLabels(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  input: CalibrationInput,
): Promise<Fitted> {
  const now = Date.now();
  const id = `calib_${ulid(now)}`;
  await deps.limits.takeRequest(owner.subject, id, now);
  const { accountId } = owner;
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
  const key = { accountId, evaluationId, questionId, fitter: FITTER };
  const fit = await fitOnce(deps.db, key, () => fitQuestion(deps, evaluation.model, input));
  return { ...fit, id, accountId, mode: owner.mode };
}

/** The question's labels (422), the fit and its cross-validated evidence (422 when it gains nothing). */
async function fitQuestion(
  deps: CalibrationDeps,
  version: string,
  input: CalibrationInput,
): Promise<FitResult> {
  const { evaluationId, questionId } = input;
  const labels = await questionLabels(deps.db, evaluationId, questionId);
  checkEnoughLabels(labels, questionId);
  const q = labels.question;
  const k = q.type === "check" ? 2 : q.type === "pick" ? q.options.length : q.levels.length;
  const fit = chooseFit(q.type, k, labels.items, { readState: true });
  if (!(fit.nllAfter < fit.nllBefore))
    throw new ApiError("calibration_no_gain", {
      param: "question",
      message: `Cross-validated NLL ${fit.nllAfter.toFixed(4)} with the fitted map against ${fit.nllBefore.toFixed(4)} with ${version}'s own: the version is already as calibrated on these labels; nothing was applied.`,
    });
  return {
    evaluationId,
    questionId,
    model: version,
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
  owner: CalibrationOwner,
  input: CalibrationInput,
): Promise<CalibrationRow> {
  const row = await insertCalibration(deps.db, await fitLabels(deps, owner, input));
  deps.calibrations.invalidate(owner.accountId);
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
  owner: CalibrationOwner,
  input: CalibrationInput,
): Promise<CalibrationRow> {
  const fitted = await fitLabels(deps, owner, input);
  return { ...fitted, active: false, createdAt: Date.now(), deactivatedAt: null };
}

/** listCalibrations: newest first, active or not, of the modes the caller sees. */
export function listCalibrations(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  page: PageQuery,
): Promise<{ data: CalibrationRow[]; hasMore: boolean }> {
  return selectCalibrations(deps.db, owner.accountId, owner.sees, page.limit, page.after);
}

const notFound = (id: string) =>
  new ApiError("calibration_not_found", {
    param: "id",
    message: `No calibration \`${id}\` in this account.`,
  });

/**
 * getCalibration: active or not (a replaced or deleted one stays readable until the retention); the other mode's
 * answers as an unknown id.
 */
export async function getCalibration(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  id: string,
): Promise<CalibrationRow> {
  const row = CALIBRATION_ID_PATTERN.test(id)
    ? await findCalibration(deps.db, owner.accountId, id, owner.sees)
    : null;
  if (!row) throw notFound(id);
  return row;
}

/**
 * deleteCalibration: deactivates it (decides stop using it within about a second; replays keep it); the other
 * mode's answers as an unknown id, unchanged.
 */
export async function deleteCalibration(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  id: string,
): Promise<CalibrationRow> {
  const row = CALIBRATION_ID_PATTERN.test(id)
    ? await deactivateCalibration(deps.db, owner.accountId, id, owner.sees)
    : null;
  if (!row) throw notFound(id);
  deps.calibrations.invalidate(owner.accountId);
  return row;
}

/**
 * proposeCalibration (issue 51): the same fit as createCalibration, stored but not applied (`active: false`), for
 * the user to compare and confirm with activateCalibration; never applied, it is deleted 30 days on like any
 * inactive one.
 */
export async function proposeCalibration(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  input: CalibrationInput,
): Promise<CalibrationRow> {
  return insertInactiveCalibration(deps.db, await fitLabels(deps, owner, input));
}

/**
 * activateCalibration: an inactive calibration of the caller's modes becomes the active one of its (version,
 * question, mode), replacing the one there (409 past the cap); an active one is answered as it is.
 */
export async function activateCalibration(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  id: string,
): Promise<CalibrationRow> {
  const done = CALIBRATION_ID_PATTERN.test(id)
    ? await activateCalibrationRow(deps.db, owner.accountId, id, owner.sees)
    : null;
  if (!done) throw notFound(id);
  if (done.refused)
    throw new ApiError("calibration_limit_reached", {
      message: `The account has ${MAX_ACTIVE_CALIBRATIONS} active calibrations: delete one first.`,
    });
  deps.calibrations.invalidate(owner.accountId);
  return done.row;
}
