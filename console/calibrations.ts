/** The console's view of calibrations (issue 44): the API's shapes, and how the pages word them. */
import { ApiError, errorText } from "./api";
import type { ReliabilityBin } from "./line-chart";

/** `/v1/console/calibrations`: create, preview, list, get, delete with the session. */
export const CALIBRATIONS = "/v1/console/calibrations";

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

/** A calibration, or its preview (`id` null, `object` "calibration_preview"). */
export interface Calibration {
  id: string | null;
  object: "calibration" | "calibration_preview";
  model: string;
  evaluation: string;
  question_id: string;
  question: QuestionDefinition;
  method: "temperature" | "temperature_bias";
  map: { temperature: number; bias: number[] };
  n: number;
  metrics: { folds: number; before: CalibrationMetrics; after: CalibrationMetrics };
  active: boolean;
  created: number;
  deactivated: number | null;
}

/** How a method reads. */
export const METHOD_TEXT: Record<Calibration["method"], string> = {
  temperature: "temperature",
  temperature_bias: "temperature and bias",
};

/** `check: Does the customer ask…`: the type and the instructions cut to `max` characters. */
export function questionSummary(q: QuestionDefinition, max = 80): string {
  const text = q.instructions.length > max ? `${q.instructions.slice(0, max - 1)}…` : q.instructions;
  return `${q.type}: ${text}`;
}

const LEADS: Record<string, string> = {
  too_few_labels: "Not enough labels to calibrate this question.",
  calibration_no_gain: "Calibrating would not make this question's answers better, so nothing was applied.",
  evaluation_outdated: "This run was scored before answers kept what a calibration needs.",
  evaluation_not_done: "This run has not finished yet.",
  calibration_limit_reached: "Your account has as many calibrations as it may have.",
};

/** A failed calibration call in words: what it means, then the API's own sentence. */
export function calibrationErrorText(e: unknown): string {
  if (!(e instanceof ApiError) || !LEADS[e.code]) return errorText(e);
  return `${LEADS[e.code]} ${e.message}`;
}
