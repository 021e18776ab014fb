import type { Context } from "hono";
import { ulid } from "ulid";
import {
  CALIBRATION_ID_PATTERN,
  MAX_ACTIVE_CALIBRATIONS,
  MIN_CHECK_LABELS_EACH,
  MIN_ITEMS,
} from "../../schema/calibrations";
import { QUESTION_ID_PATTERN } from "../../schema/decide";
import { EVALUATION_ID_PATTERN } from "../../schema/evaluations";
import type { AppEnv } from "../context/app-env";
import { questionFingerprint } from "../decide/question-fingerprint";
import { ApiError } from "../errors";
import { patternRule, readConsoleBody } from "../http/console-body";
import { intParam, queryOf } from "../http/list-query";
import {
  type CalibrationRow,
  deactivateCalibration,
  findCalibration,
  insertCalibration,
  listCalibrations,
} from "../stores/calibrations";
import { findEvaluation } from "../stores/evaluations";
import { chooseFit, FOLDS } from "./cross-validate";
import { type QuestionLabels, questionLabels } from "./labels";
import { calibrationMetrics } from "./metrics";

const seconds = (ms: number | null) => (ms === null ? "null" : String(Math.floor(ms / 1000)));
const str = (s: string) => JSON.stringify(s);

/**
 * The Calibration object's JSON text (schema/calibrations.ts): the question spliced in as written. A preview
 * (`CalibrationPreview`) has no id and its own object name.
 */
export function calibrationJson(r: CalibrationRow, preview = false): string {
  return `{${[
    `"id":${preview ? "null" : str(r.id)}`,
    `"object":${preview ? '"calibration_preview"' : '"calibration"'}`,
    `"model":${str(r.model)}`,
    `"evaluation":${str(r.evaluationId)}`,
    `"question_id":${str(r.questionId)}`,
    `"question":${r.question}`,
    `"method":${str(r.method)}`,
    `"map":${JSON.stringify({ temperature: r.map.temperature, bias: r.map.bias })}`,
    `"n":${r.n}`,
    `"metrics":${r.metrics}`,
    `"active":${r.active}`,
    `"created":${seconds(r.createdAt)}`,
    `"deactivated":${seconds(r.deactivatedAt)}`,
  ].join(",")}}`;
}

function jsonText(c: Context<AppEnv>, text: string, status: 200 | 201): Response {
  c.header("content-type", "application/json");
  return c.body(text, status);
}

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

/**
 * The body (400/413/422), the evaluation (404, 409 unless done), the question's labels (422), the fit and its
 * cross-validated evidence (422 when it gains nothing): what createCalibration stores and preview shows.
 */
async function fitFromBody(c: Context<AppEnv>, accountId: string): Promise<Fitted> {
  const { fields } = await readConsoleBody(c, {
    evaluation: patternRule(EVALUATION_ID_PATTERN, true),
    question: patternRule(QUESTION_ID_PATTERN, true),
  });
  const evaluationId = fields.evaluation as string;
  const questionId = fields.question as string;
  const evaluation = await findEvaluation(c.var.db, accountId, evaluationId);
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
  const labels = await questionLabels(c.var.db, evaluationId, questionId);
  checkEnoughLabels(labels, questionId);
  const q = labels.question;
  const k = q.type === "check" ? 2 : q.type === "pick" ? q.options.length : q.levels.length;
  const fit = chooseFit(q.type, k, labels.items);
  if (!(fit.nllAfter < fit.nllBefore))
    throw new ApiError("calibration_no_gain", {
      param: "question",
      message: `Cross-validated NLL ${fit.nllAfter.toFixed(4)} with the fitted map against ${fit.nllBefore.toFixed(4)} with ${evaluation.model}'s own: the version is already as calibrated on these labels; nothing was applied.`,
    });
  const metrics = {
    folds: FOLDS,
    before: calibrationMetrics(
      q,
      labels.items.map((e) => e.p),
      labels.items,
    ),
    after: calibrationMetrics(q, fit.crossValidated, labels.items),
  };
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
    metrics: JSON.stringify(metrics),
  };
}

/**
 * createCalibration: the fit (see `fitFromBody`), then the one active calibration of its (version, question) for
 * the account, replacing the one there (409 past the cap).
 */
export async function createCalibrationResponse(c: Context<AppEnv>, accountId: string): Promise<Response> {
  const row = await insertCalibration(c.var.db, await fitFromBody(c, accountId));
  c.var.calibrations.invalidate(accountId);
  if (!row)
    throw new ApiError("calibration_limit_reached", {
      message: `The account has ${MAX_ACTIVE_CALIBRATIONS} active calibrations: delete one first.`,
    });
  return jsonText(c, calibrationJson(row), 201);
}

/**
 * previewCalibration: the same fit and metrics as createCalibration, stored nowhere and applied to nothing
 * (`id` null, `active` false): what the console shows before the customer applies it.
 */
export async function previewCalibrationResponse(c: Context<AppEnv>, accountId: string): Promise<Response> {
  const fitted = await fitFromBody(c, accountId);
  const row = { ...fitted, active: false, createdAt: Date.now(), deactivatedAt: null };
  return jsonText(c, calibrationJson(row, true), 200);
}

/** listCalibrations: newest first, active or not, `limit` 1–100 (default 20), `starting_after` an id. */
export async function listCalibrationsResponse(c: Context<AppEnv>, accountId: string): Promise<Response> {
  const q = queryOf(c, ["limit", "starting_after"]);
  const limit = intParam(q, "limit", 1, 100, 20);
  const after = q.get("starting_after") ?? null;
  if (after !== null && !CALIBRATION_ID_PATTERN.test(after))
    throw new ApiError("invalid_value", {
      param: "starting_after",
      message: "`starting_after` is a calibration id.",
    });
  const page = await listCalibrations(c.var.db, accountId, limit, after);
  return jsonText(
    c,
    `{"object":"list","data":[${page.data.map((r) => calibrationJson(r)).join(",")}],"has_more":${page.hasMore}}`,
    200,
  );
}

const notFound = (id: string) =>
  new ApiError("calibration_not_found", {
    param: "id",
    message: `No calibration \`${id}\` in this account.`,
  });

/** getCalibration: active or not (a replaced or deleted one stays readable). */
export async function getCalibrationResponse(c: Context<AppEnv>, accountId: string): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const row = CALIBRATION_ID_PATTERN.test(id) ? await findCalibration(c.var.db, accountId, id) : null;
  if (!row) throw notFound(id);
  return jsonText(c, calibrationJson(row), 200);
}

/** deleteCalibration: deactivates it (decides stop using it within about a second; replays keep it). */
export async function deleteCalibrationResponse(c: Context<AppEnv>, accountId: string): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const row = CALIBRATION_ID_PATTERN.test(id) ? await deactivateCalibration(c.var.db, accountId, id) : null;
  if (!row) throw notFound(id);
  c.var.calibrations.invalidate(accountId);
  return jsonText(c, calibrationJson(row), 200);
}
