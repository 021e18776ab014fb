import { ulid } from "ulid";
import { CALIBRATION_ID_PATTERN, MAX_ACTIVE_CALIBRATIONS } from "../../schema/calibrations";
import type { Services } from "../context/services";
import { ApiError } from "../errors";
import type { PageQuery } from "../http/list-query";
import type { MoneySubject } from "../limits/key-limits";
import { readFit } from "../stores/calibration-fits";
import { insertFitting } from "../stores/calibration-fitting";
import {
  activateCalibrationRow,
  type CalibrationMode,
  type CalibrationRow,
  deactivateCalibration,
  type FittedCalibration,
  findCalibration,
  insertCalibration,
  insertInactiveCalibration,
  type ModeScope,
  listCalibrations as selectCalibrations,
} from "../stores/calibrations";
import { type EvaluationRow, findEvaluation } from "../stores/evaluations";
import { fitQuestion } from "./fit-question";
import { questionRows } from "./labels";
import { FITTER, fitOnce } from "./reuse";

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
 * reads up to 20 pages of items and fits for up to seconds of CPU), then the evaluation (404, 409 unless done).
 */
async function admitFit(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  input: CalibrationInput,
): Promise<{ id: string; evaluation: EvaluationRow }> {
  const now = Date.now();
  const id = `calib_${ulid(now)}`;
  await deps.limits.takeRequest(owner.subject, id, now);
  const evaluation = await findEvaluation(deps.db, owner.accountId, input.evaluationId);
  if (!evaluation)
    throw new ApiError("evaluation_not_found", {
      param: "evaluation",
      message: `No evaluation \`${input.evaluationId}\` in this account.`,
    });
  if (evaluation.status !== "done")
    throw new ApiError("evaluation_not_done", {
      param: "evaluation",
      message: `The evaluation is \`${evaluation.status}\`: calibrate once it is \`done\`.`,
    });
  return { id, evaluation };
}

const fitKey = (owner: CalibrationOwner, input: CalibrationInput) => ({
  accountId: owner.accountId,
  evaluationId: input.evaluationId,
  questionId: input.questionId,
  fitter: FITTER,
});

/**
 * The fit of that evaluation and question: the kept one, else the question's labels (422), the fit and its
 * cross-validated evidence (422 when it gains nothing), kept. What createCalibration stores and preview shows.
 */
async function fitLabels(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  input: CalibrationInput,
  admitted: { id: string; evaluation: EvaluationRow },
): Promise<FittedCalibration> {
  const { id, evaluation } = admitted;
  const fit = await fitOnce(deps.db, fitKey(owner, input), () => fitQuestion(deps, evaluation.model, input));
  return { ...fit, id, accountId: owner.accountId, mode: owner.mode };
}

/**
 * Largest evaluation (items × the question's weight rows) fitted in the request (issue 49; measured in
 * docs/decisions.md, "Large fits in the background"): a fit reads the states' words, so its time grows with the
 * items, their tokens and the rows it solves for (a check 1, a pick or rate one per option or level).
 */
export const IN_REQUEST_ITEMS = 200;
/** …and largest evaluation (its items' input tokens × the question's weight rows) fitted in the request. */
export const IN_REQUEST_TOKENS = 60_000;

/**
 * Whether a fit of `e` for a question of `rows` weight rows is above the in-request bound (a kept fit never is:
 * it is read, not fitted).
 */
export function fitsInBackground(e: Pick<EvaluationRow, "total" | "inputTokens">, rows = 1): boolean {
  return e.total * rows > IN_REQUEST_ITEMS || e.inputTokens * rows > IN_REQUEST_TOKENS;
}

/** `fitsInBackground` for the question (its rows read from the first item only when a check's bound holds). */
async function aboveBound(
  deps: CalibrationDeps,
  e: EvaluationRow,
  input: CalibrationInput,
): Promise<boolean> {
  if (fitsInBackground(e)) return true;
  return fitsInBackground(e, (await questionRows(deps.db, input.evaluationId, input.questionId)) ?? 1);
}

/** A calibration still `fitting` this long after its create is kicked again by a read. */
export const STALLED_FIT_MS = 30_000;

/** How createCalibration may run its fit. */
export interface CreateCalibrationOptions {
  /**
   * Kicks the account's runner (workers/clients/runner.ts). Given, a fit above the in-request bound
   * (`fitsInBackground`) and not kept is stored `fitting` and answered at once; the runner fits it. Absent,
   * every fit runs in the call, as before.
   */
  kick?: (accountId: string) => void;
}

/**
 * createCalibration: the fit (see `fitLabels`), then the one active calibration of its (version, question) for the
 * account, replacing the one there (409 past the cap). Above the in-request bound, with `options.kick`: the
 * calibration `fitting` (or the one of the same evaluation, question and mode already fitting), which the
 * account's runner makes `active` or `failed` (workers/calibrations/background.ts).
 */
export async function createCalibration(
  deps: CalibrationDeps,
  owner: CalibrationOwner,
  input: CalibrationInput,
  options: CreateCalibrationOptions = {},
): Promise<CalibrationRow> {
  const admitted = await admitFit(deps, owner, input);
  const { evaluation } = admitted;
  if (
    options.kick &&
    (await aboveBound(deps, evaluation, input)) &&
    (await readFit(deps.db, fitKey(owner, input))) === null
  ) {
    const row = await insertFitting(deps.db, {
      id: admitted.id,
      accountId: owner.accountId,
      evaluationId: input.evaluationId,
      questionId: input.questionId,
      model: evaluation.model,
      mode: owner.mode,
    });
    options.kick(owner.accountId);
    return row;
  }
  const row = await insertCalibration(deps.db, await fitLabels(deps, owner, input, admitted));
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
  const fitted = await fitLabels(deps, owner, input, await admitFit(deps, owner, input));
  return {
    ...fitted,
    status: "inactive",
    error: null,
    active: false,
    createdAt: Date.now(),
    deactivatedAt: null,
  };
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
  options: Pick<CreateCalibrationOptions, "kick"> = {},
): Promise<CalibrationRow> {
  const row = CALIBRATION_ID_PATTERN.test(id)
    ? await findCalibration(deps.db, owner.accountId, id, owner.sees)
    : null;
  if (!row) throw notFound(id);
  // A fit that should have finished (a lost alarm, a restart) is kicked again by the read that waits for it.
  if (row.status === "fitting" && Date.now() - row.createdAt > STALLED_FIT_MS)
    options.kick?.(owner.accountId);
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
  return insertInactiveCalibration(
    deps.db,
    await fitLabels(deps, owner, input, await admitFit(deps, owner, input)),
  );
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
  if (done.unfitted)
    throw new ApiError("calibration_not_fitted", {
      message: `Calibration ${id} is ${done.row.status}: only a fitted calibration can be applied.`,
    });
  if (done.refused)
    throw new ApiError("calibration_limit_reached", {
      message: `The account has ${MAX_ACTIVE_CALIBRATIONS} active calibrations: delete one first.`,
    });
  deps.calibrations.invalidate(owner.accountId);
  return done.row;
}
