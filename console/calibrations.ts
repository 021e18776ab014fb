/** The console's view of calibrations (issue 44): the API's shapes, and how the pages word them. */
import { ApiError, errorText } from "./api";
import { CALIBRATION_LEADS } from "./calibration-words";
import type { ReliabilityBin } from "./line-chart";

/** `/v1/console/calibrations`: create, preview, list, get, delete with the session. */
export const CALIBRATIONS = "/v1/console/calibrations";
/** The console's fit-and-measure route: a calibration stored nowhere. */
export const CALIBRATION_PREVIEWS = "/v1/console/calibration-previews";

/** A question as written in the items (and matched by decides). */
export interface QuestionDefinition {
  type: "check" | "pick" | "rate";
  instructions: string;
  criteria?: string | string[] | null;
  options?: Record<string, string | null>;
  levels?: string[];
}

/** One side (before or after) of a calibration's cross-validated metrics. */
export interface CalibrationMetrics {
  n: number;
  accuracy: number;
  ece15: number;
  ece15_noise_floor: number;
  nll: number;
  brier: number;
  auc: number | null;
  reliability: ReliabilityBin[];
  thresholds: Array<{ target: number; min_confidence: number | null; coverage: number | null }>;
}

/** How a calibration answers: a map on the version's answer, or a model that also reads the state's words. */
export type CalibrationMethod = "temperature" | "temperature_bias" | "state_words";

/** A state-reading calibration's `features`: the written procedure and the size of what it learned. */
export interface CalibrationFeatures {
  kind: "state_words";
  procedure: string;
  buckets: number;
  vocabulary: number;
  l2: number;
  model_bytes: number;
}

/** A calibration, or its preview (`id` null, `object` "calibration_preview"). */
export interface Calibration {
  id: string | null;
  object: "calibration" | "calibration_preview";
  model: string;
  evaluation: string;
  question_id: string;
  question: QuestionDefinition;
  method: CalibrationMethod;
  /** What a state-reading model read of the state; null for a map. */
  features: CalibrationFeatures | null;
  map: { temperature: number; bias: number[] };
  n: number;
  metrics: {
    folds: number;
    before: CalibrationMetrics;
    after: CalibrationMetrics;
    /** Every method tried, with its cross-validated metrics on the same folds (absent on older calibrations). */
    methods?: Array<{ method: CalibrationMethod; l2?: number; metrics: CalibrationMetrics }>;
    /** A method not tried, and why (`work_bound`: the labels' states were above the fit's work bound). */
    not_tried?: Array<{ method: "state_words"; reason: "work_bound"; work: number; bound: number }>;
  };
  /** `fitting` on the account's runner (a large evaluation), `active`, `inactive`, or `failed` (`error`). */
  status: CalibrationStatus;
  active: boolean;
  created: number;
  deactivated: number | null;
  error: { code: string; param?: string; message: string } | null;
}

export type CalibrationStatus = "fitting" | "active" | "inactive" | "failed";

/** A calibration as the list reads it: its fitted fields null while `fitting` and when `failed`. */
export type ListedCalibration = Omit<Calibration, "question" | "method" | "map" | "n" | "metrics"> & {
  [K in "question" | "method" | "map" | "n" | "metrics"]: Calibration[K] | null;
};

/** A failed calibration call in words: what it means, then the API's own sentence. */
export function calibrationErrorText(e: unknown): string {
  const lead = e instanceof ApiError ? CALIBRATION_LEADS[e.code] : undefined;
  return lead && e instanceof ApiError ? `${lead} ${e.message}` : errorText(e);
}
