import { shapeAnswer } from "../../schema/answers";
import type { ValidatedQuestion } from "../../schema/decide";
import type { ScoreQuestion } from "../../schema/engine-protocol";
import { BUCKETS, WORDS_PROCEDURE } from "../../schema/learned/features";
import { wordsModelJson } from "../../schema/learned/model";
import { eceNoiseFloor } from "../../schema/metrics";
import { type Expected, questionMetrics, scoreAnswer } from "../evaluations/metrics";
import { type ChosenFit, FOLDS, meanNll } from "./cross-validate";
import type { Labelled } from "./fit";

/** The `before` or `after` of a calibration: every metric of one question over the same answers. */
export interface CalibrationMetricsJson {
  n: number;
  accuracy: number;
  ece15: number;
  ece15_noise_floor: number;
  nll: number;
  brier: number;
  auc: number | null;
  reliability: ReturnType<typeof questionMetrics>["reliability"];
  thresholds: ReturnType<typeof questionMetrics>["thresholds"];
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The question as the engine shapes its answers (no `min_confidence`: thresholds read every confidence). */
function shaped(q: ValidatedQuestion): ScoreQuestion {
  const common = { id: q.id, instructions: q.instructions, criteria: [] };
  if (q.type === "pick") return { ...common, type: "pick", options: q.options };
  if (q.type === "rate") return { ...common, type: "rate", levels: q.levels };
  return { ...common, type: "check" };
}

function expectedLabel(q: ValidatedQuestion, y: number): Expected {
  if (q.type === "check") return y === 0;
  return q.type === "pick" ? (q.options[y]?.label ?? "") : (q.levels[y] ?? "");
}

/**
 * Metrics of `dists` (one unrounded distribution per labelled item) as a decide would answer them: each shaped
 * and rounded like an answer, then scored as an evaluation scores it; NLL on the unrounded values.
 */
export function calibrationMetrics(
  q: ValidatedQuestion,
  dists: readonly (readonly number[])[],
  items: readonly Labelled[],
): CalibrationMetricsJson {
  const sq = shaped(q);
  const scored = dists.map((p, n) => scoreAnswer(shapeAnswer(sq, [...p]), expectedLabel(q, items[n]!.y)));
  const m = questionMetrics(scored);
  return {
    n: m.n,
    accuracy: m.accuracy,
    ece15: m.ece15,
    ece15_noise_floor: r4(eceNoiseFloor(dists.map((p) => Math.max(...p)))),
    nll: r4(meanNll(dists, items)),
    brier: m.brier,
    auc: m.auc,
    reliability: m.reliability,
    thresholds: m.thresholds,
  };
}

/**
 * A calibration's `metrics` (schema/calibrations.ts): `before` (the version's own answers), `after` (the chosen
 * method's cross-validated answers) and `methods`, every method tried with its own cross-validated metrics
 * (state_words: at the L2 weight its folds chose), all on the same folds.
 */
export function calibrationEvidence(q: ValidatedQuestion, fit: ChosenFit, items: readonly Labelled[]) {
  return {
    folds: FOLDS,
    before: calibrationMetrics(
      q,
      items.map((e) => e.p),
      items,
    ),
    after: calibrationMetrics(q, fit.crossValidated, items),
    methods: fit.tried.map((t) => ({
      method: t.method,
      ...(t.l2 !== undefined && { l2: t.l2 }),
      metrics: calibrationMetrics(q, t.crossValidated, items),
    })),
  };
}

/**
 * A calibration's `features` (schema/calibrations.ts) as JSON text: what a state-reading model read; null for a
 * map (it reads the version's answer only).
 */
export function featuresJson(fit: ChosenFit): string | null {
  if (!fit.model) return null;
  return JSON.stringify({
    kind: "state_words",
    procedure: WORDS_PROCEDURE,
    buckets: BUCKETS,
    vocabulary: fit.model.vocab.length,
    l2: fit.model.l2,
    model_bytes: wordsModelJson(fit.model).length,
  });
}
