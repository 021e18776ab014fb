/**
 * Calibrations (POST /v1/calibrations and its reads, issue 44): a map fitted on a done evaluation's labels for
 * one question, applied to the account's decides that ask that question, as written, of that exact version.
 */
import type { Question } from "./decide-types.js";
import type { ReliabilityBin } from "./evaluation-types.js";

/** Body of `createCalibration` and `previewCalibration`. */
export interface CreateCalibrationRequest {
  /** A `done` evaluation of the account (`eval_…`). */
  evaluation: string;
  /** A question id of its items: a check needs 30 labels of each answer, a pick or a rate 50 items. */
  question: string;
}

/**
 * `temperature`: one temperature on the log-probabilities; `temperature_bias`: a bias too; `state_words`: a
 * linear model over the words of the rendered state stacked with the version's answer (issue 49).
 */
export type CalibrationMethod = "temperature" | "temperature_bias" | "state_words";

/** What a `state_words` calibration read of the state. */
export interface CalibrationFeatures {
  kind: "state_words";
  /** NFC, lower case, letter-and-digit runs (first 2,048), words and word pairs, FNV-1a 32-bit into `buckets`. */
  procedure: string;
  buckets: number;
  /** Buckets the model reads. */
  vocabulary: number;
  /** L2 weight on the word weights, chosen by the same folds. */
  l2: number;
  /** Size of the stored model (at most 262,144). */
  model_bytes: number;
}

/** Cross-validated metrics of the question's answers, with the version's map or with the account's. */
export interface CalibrationMetrics {
  n: number;
  accuracy: number;
  ece15: number;
  /** The ECE-15 a perfectly calibrated answer with these confidences shows from sampling noise alone. */
  ece15_noise_floor: number;
  nll: number;
  brier: number;
  /** Checks only: ROC AUC of the probability of yes. */
  auc: number | null;
  reliability: ReliabilityBin[];
  /** For accuracy 0.90, 0.95 and 0.99: the smallest `min_confidence` reaching it, or null. */
  thresholds: Array<{ target: number; min_confidence: number | null; coverage: number | null }>;
}

/**
 * Where a calibration is: `fitting` on the account's runner (a create above the in-request bound answers 202;
 * wait with `getCalibration`), `active`, `inactive` (replaced or deleted), `failed` (see `error`).
 */
export type CalibrationStatus = "fitting" | "active" | "inactive" | "failed";

/** A calibration of one question of the account's, on one exact version. */
export interface Calibration {
  id: string;
  object: "calibration";
  /** The exact version it applies to (`svc-N.N.N`): not followed when the alias moves. */
  model: string;
  evaluation: string;
  question_id: string;
  /**
   * The question as written, without `min_confidence`: decides asking exactly this are answered with the map.
   * Null while `fitting` and when `failed`, as are `method`, `map`, `n` and `metrics`.
   */
  question: Question | null;
  method: CalibrationMethod | null;
  /** `state_words`: what it read of the state; null for a map. */
  features: CalibrationFeatures | null;
  /** `bias` per option or level in order; a check's is [yes, no]. */
  map: { temperature: number; bias: number[] } | null;
  /** Labelled items the map was fitted on. */
  n: number | null;
  /** K-fold cross-validated: `before` with the version's map, `after` with the account's. */
  metrics: {
    folds: number;
    before: CalibrationMetrics;
    after: CalibrationMetrics;
    /** Every method tried, with its cross-validated metrics on the same folds. */
    methods?:
      | Array<{ method: CalibrationMethod; l2?: number | undefined; metrics: CalibrationMetrics }>
      | undefined;
    /** A method not tried: `work_bound` when the states' word buckets × weight rows (`work`) exceed `bound`. */
    not_tried?:
      | Array<{ method: "state_words"; reason: "work_bound"; work: number; bound: number }>
      | undefined;
  } | null;
  /** The mode of its creator: `test` answers only test decides; `live` live ones (and test ones without a `test`). */
  mode: "live" | "test";
  status: CalibrationStatus;
  active: boolean;
  created: number;
  /** When it was replaced or deleted, or when it failed. */
  deactivated: number | null;
  /** `failed`: the error a synchronous create would have answered (e.g. `calibration_no_gain`). */
  error: { code: string; param?: string | undefined; message: string } | null;
}

/** What `createCalibration` would make: stored nowhere, applied to nothing. */
export interface CalibrationPreview extends Omit<Calibration, "id" | "object"> {
  id: null;
  object: "calibration_preview";
}

export interface CalibrationList {
  object: "list";
  data: Calibration[];
  has_more: boolean;
}
