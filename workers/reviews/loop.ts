import { applyMap } from "../../schema/calibration-map";
import { MIN_CHECK_LABELS_EACH, MIN_ITEMS } from "../../schema/calibrations";
import { DEFAULT_MODEL } from "../../schema/decide";
import { getMember, isJsonObject } from "../../schema/json";
import { readJsonText } from "../../schema/json-text";
import { applyWordsModel, readWordsModel } from "../../schema/learned/model";
import { nll } from "../../schema/metrics";
import { parseStrictJson } from "../../schema/strict-json";
import { questionLabels } from "../calibrations/labels";
import { activateCalibration, type CalibrationOwner, proposeCalibration } from "../calibrations/service";
import { resolveModel } from "../decide/resolve-model";
import { ApiError } from "../errors";
import { createEvaluation, type EvaluationDeps } from "../evaluations/service";
import { MAX_ITEMS, validateEvaluationBody } from "../evaluations/validate";
import { errorText, logEvent } from "../observability/log";
import { activeCalibrations, type CalibrationRow, learnedModels } from "../stores/calibrations";
import { listItems } from "../stores/evaluation-items";
import { type EvaluationRow, findEvaluation } from "../stores/evaluations";
import { type ReviewRuleRow, rulesAwaitingFit, setReviewLoop, takeLoop } from "../stores/review-rules";
import { labelledReviews, type ReviewRow } from "../stores/reviews";
import { getRule, type ReviewDeps, type ReviewOwner } from "./rules";

/** 422 `too_few_labels` under calibrations' own minimum: a check 30 labels of each answer, a pick or rate 50 items. */
function checkEnough(rule: ReviewRuleRow, items: readonly ReviewRow[]): void {
  const type = (JSON.parse(rule.question) as { type: string }).type;
  if (type === "check") {
    const yes = items.filter((r) => r.label === "true").length;
    if (yes < MIN_CHECK_LABELS_EACH || items.length - yes < MIN_CHECK_LABELS_EACH)
      throw new ApiError("too_few_labels", {
        param: "id",
        message: `The rule has ${yes} items labelled yes and ${items.length - yes} labelled no: a check is calibrated on at least ${MIN_CHECK_LABELS_EACH} of each.`,
      });
  } else if (items.length < MIN_ITEMS)
    throw new ApiError("too_few_labels", {
      param: "id",
      message: `The rule has ${items.length} labelled items: a ${type} is calibrated on at least ${MIN_ITEMS}.`,
    });
}

/** The version the loop evaluates on: the rule's model as it resolves now, else the default alias's. */
function currentVersion(rule: ReviewRuleRow): string {
  return resolveModel(rule.model ?? DEFAULT_MODEL, "never").version.id;
}

/**
 * The evaluation's body as JSON text: every labelled item (the newest MAX_ITEMS) with its state and question as
 * the decide had them, under one question id (the newest item's), expecting its label.
 */
function evaluationBody(rule: ReviewRuleRow, version: string, items: readonly ReviewRow[]): string {
  const id = JSON.stringify(items[0]!.questionId);
  const lines = items.map(
    (r) => `{"state":${r.state},"questions":{${id}:${r.question}},"expected":{${id}:${r.label}}}`,
  );
  return `{"name":${JSON.stringify(`review rule ${rule.id}`)},"model":${JSON.stringify(version)},"items":[${lines.join(",")}]}`;
}

/**
 * createReviewRuleEvaluation: an ordinary evaluation of the rule's labelled items on the current version (the
 * evaluations service: its rate limit, caps and runner); once it is done, the runner fits a calibration
 * (`closeReviewLoops`). 422 `too_few_labels` under calibrations' minimum.
 */
export async function startReviewLoop(
  deps: ReviewDeps & Pick<EvaluationDeps, "kick">,
  owner: ReviewOwner,
  ruleId: string,
): Promise<EvaluationRow> {
  const rule = await getRule(deps, owner, ruleId);
  const items = await labelledReviews(deps.db, rule.id, MAX_ITEMS);
  checkEnough(rule, items);
  const version = currentVersion(rule);
  const parsed = parseStrictJson(evaluationBody(rule, version, items));
  if (!parsed.ok) throw new Error("a review rule's evaluation body is not JSON");
  const evaluation = await createEvaluation(
    { db: deps.db, limits: deps.limits, kick: deps.kick },
    { accountId: owner.accountId, keyId: owner.keyId, subject: owner.subject },
    validateEvaluationBody(parsed.value),
  );
  await setReviewLoop(deps.db, rule.id, { status: "evaluating", evaluation: evaluation.id });
  return evaluation;
}

/**
 * Held-out NLL of what answers the question now, on the new evaluation's labels: the active calibration of its
 * (version, question, mode) applied to each item (none of them held out from it: it was fitted before they were
 * labelled, or on fewer of them), else the version's own answer as the new fit's folds measured it.
 */
async function incumbentNll(deps: ReviewDeps, fitted: CalibrationRow): Promise<number> {
  const active = (await activeCalibrations(deps.db, fitted.accountId)).find(
    (a) => a.model === fitted.model && a.fingerprint === fitted.fingerprint && a.mode === fitted.mode,
  );
  const metrics = JSON.parse(fitted.metrics ?? "null") as { before: { nll: number } };
  if (!active) return metrics.before.nll;
  const labels = await questionLabels(deps.db, fitted.evaluationId, fitted.questionId);
  const text = active.learned
    ? (await learnedModels(deps.db, fitted.accountId, [active.id])).get(active.id)
    : null;
  const model = text ? readWordsModel(text) : null;
  const probs = labels.items.map((it) =>
    model && it.words ? applyWordsModel(model, it.p, it.words) : applyMap(active.map, it.p),
  );
  return nll(
    probs,
    labels.items.map((it) => it.y),
  );
}

/** The one question id of a loop's evaluation (every item asks it): the first item's. */
async function loopQuestionId(deps: ReviewDeps, evaluationId: string): Promise<string> {
  const [first] = await listItems(deps.db, evaluationId, 0, 1);
  const request = first ? readJsonText(first.request) : null;
  const questions = isJsonObject(request) ? getMember(request, "questions") : undefined;
  return isJsonObject(questions) ? (questions.entries[0]?.[0] ?? "") : "";
}

/**
 * One rule's finished evaluation: a failed or cancelled one fails the loop; a done one is fitted (the
 * calibrations service, stored inactive) and applied only when the rule opted in (`auto_apply`) and its
 * cross-validated NLL beats the incumbent's (`incumbentNll`); otherwise it waits for the user's confirmation.
 */
async function closeLoop(deps: ReviewDeps, rule: ReviewRuleRow): Promise<void> {
  const evaluation = rule.loopEvaluation!;
  const e = await findEvaluation(deps.db, rule.accountId, evaluation);
  if (!(await takeLoop(deps.db, rule.id, evaluation))) return;
  if (e?.status !== "done") {
    const error = {
      code: `evaluation_${e?.status ?? "deleted"}`,
      message: "The loop's evaluation did not finish.",
    };
    await setReviewLoop(deps.db, rule.id, { status: "failed", error: JSON.stringify(error) });
    return;
  }
  const owner: CalibrationOwner = {
    accountId: rule.accountId,
    mode: rule.mode,
    sees: rule.mode,
    subject: { keyId: `playground_${rule.accountId}`, accountId: rule.accountId, mode: "test" },
  };
  const questionId = await loopQuestionId(deps, e.id);
  try {
    const fitted = await proposeCalibration(deps, owner, { evaluationId: e.id, questionId });
    const metrics = JSON.parse(fitted.metrics ?? "null") as { after: { nll: number } };
    const apply = rule.autoApply && metrics.after.nll < (await incumbentNll(deps, fitted));
    if (apply) await activateCalibration(deps, owner, fitted.id);
    await setReviewLoop(deps.db, rule.id, { status: apply ? "applied" : "fitted", calibration: fitted.id });
  } catch (err) {
    const error =
      err instanceof ApiError
        ? { code: err.code, message: err.message }
        : { code: "internal_error", message: "The fit failed." };
    if (!(err instanceof ApiError))
      logEvent("error", "review_loop_failed", { rule: rule.id, error: errorText(err) });
    await setReviewLoop(deps.db, rule.id, { status: "failed", error: JSON.stringify(error) });
  }
}

/** The runner's step after its evaluations slice: closes every loop of the account whose evaluation finished. */
export async function closeReviewLoops(deps: ReviewDeps, accountId: string): Promise<void> {
  for (const rule of await rulesAwaitingFit(deps.db, accountId)) await closeLoop(deps, rule);
}
