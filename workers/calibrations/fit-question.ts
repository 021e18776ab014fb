import { MAX_STATE_WORDS_WORK, MIN_CHECK_LABELS_EACH, MIN_ITEMS } from "../../schema/calibrations";
import { wordsModelJson } from "../../schema/learned/model";
import type { Services } from "../context/services";
import { questionFingerprint } from "../decide/question-fingerprint";
import { ApiError } from "../errors";
import { chooseFit } from "./cross-validate";
import { type QuestionLabels, questionLabels } from "./labels";
import { calibrationEvidence, featuresJson } from "./metrics";
import type { FitResult } from "./reuse";

/** What a fit reads: the database. */
export type FitDeps = Pick<Services, "db">;

/** Which labels a fit reads: an evaluation and a question id. */
export interface FitInput {
  evaluationId: string;
  questionId: string;
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

/**
 * The state-reading candidate's work on these labels: the states' distinct word buckets, summed, times the
 * question's weight rows (`MAX_STATE_WORDS_WORK` bounds it).
 */
export function stateWordsWork(
  items: QuestionLabels["items"],
  type: "pick" | "rate" | "check",
  k: number,
): number {
  const rows = type === "check" ? 1 : k;
  return items.reduce((sum, e) => sum + (e.words?.buckets.length ?? 0), 0) * rows;
}

/**
 * The fit of enough labels and its evidence (`metrics` JSON text): the maps, and the state-reading model while
 * its work is within `bound`; above it, `not_tried` says so.
 */
export function fitLabels(labels: QuestionLabels, bound = MAX_STATE_WORDS_WORK) {
  const q = labels.question;
  const k = q.type === "check" ? 2 : q.type === "pick" ? q.options.length : q.levels.length;
  const work = stateWordsWork(labels.items, q.type, k);
  const readState = work <= bound;
  const fit = chooseFit(q.type, k, labels.items, { readState });
  const metrics = JSON.stringify({
    ...calibrationEvidence(q, fit, labels.items),
    ...(!readState && { not_tried: [{ method: "state_words", reason: "work_bound", work, bound }] }),
  });
  return { fit, metrics };
}

/**
 * The question's labels (422), the fit and its cross-validated evidence (422 when it gains nothing): the same
 * in a request and on the account's runner.
 */
export async function fitQuestion(deps: FitDeps, version: string, input: FitInput): Promise<FitResult> {
  const { evaluationId, questionId } = input;
  const labels = await questionLabels(deps.db, evaluationId, questionId);
  checkEnoughLabels(labels, questionId);
  const { fit, metrics } = fitLabels(labels);
  if (!(fit.nllAfter < fit.nllBefore))
    throw new ApiError("calibration_no_gain", {
      param: "question",
      message: `Cross-validated NLL ${fit.nllAfter.toFixed(4)} with the fitted map against ${fit.nllBefore.toFixed(4)} with ${version}'s own: the version is already as calibrated on these labels; nothing was applied.`,
    });
  return {
    evaluationId,
    questionId,
    model: version,
    fingerprint: await questionFingerprint(labels.question),
    question: labels.definition,
    method: fit.method,
    map: fit.map,
    n: labels.items.length,
    metrics,
    features: featuresJson(fit),
    learned: fit.model ? wordsModelJson(fit.model) : null,
  };
}
