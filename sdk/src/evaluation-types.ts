/**
 * Evaluations (POST /v1/evaluations and its reads): a labelled set scored in the background on the account's
 * daily test quota, with accuracy, calibration and the `min_confidence` that reaches a target accuracy.
 */
import type { Decision, Questions, State } from "./decide-types.js";

/** Question id → the right answer: a pick's label, a rate's level, a check's true / false. */
export type Expected = Record<string, string | boolean>;

/** One labelled item: a decide's state and questions (no `model`, no `fallback`) and the expected answers. */
export interface EvaluationItemInput {
  state: State;
  questions: Questions;
  expected: Expected;
}

/** Body of `createEvaluation`: 1 to 1,000 items within 256 KiB. */
export interface CreateEvaluationRequest {
  name: string;
  /** Alias or exact version (default `svc-1`), pinned to its exact version at creation. */
  model?: string;
  items: EvaluationItemInput[];
}

export type EvaluationStatus = "queued" | "running" | "paused" | "done" | "cancelled" | "failed";

export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  mean_probability: number | null;
  accuracy: number | null;
}

/** Metrics of one question id over the evaluation's items. */
export interface QuestionMetrics {
  n: number;
  accuracy: number;
  mean_absolute_level_error: number | null;
  auc: number | null;
  ece15: number;
  brier: number;
  reliability: ReliabilityBin[];
  risk_coverage: Array<{ min_confidence: number; coverage: number; accuracy: number | null }>;
  /** For accuracy 0.90, 0.95 and 0.99: the smallest `min_confidence` reaching it, or null. */
  thresholds: Array<{ target: number; min_confidence: number | null; coverage: number | null }>;
}

export interface Evaluation {
  id: string;
  object: "evaluation";
  name: string;
  model: string;
  status: EvaluationStatus;
  progress: { done: number; total: number };
  usage: { input_tokens: number };
  created: number;
  started: number | null;
  finished: number | null;
  /** Paused (daily test quota used up): when it resumes, Unix seconds. */
  resumes_at: number | null;
  expires_at: number;
  failure: { code: string; message: string } | null;
  /** Per question id once `done`, else null. */
  metrics: Record<string, QuestionMetrics> | null;
}

export interface EvaluationList {
  object: "list";
  data: Evaluation[];
  has_more: boolean;
}

export interface DeletedEvaluation {
  id: string;
  object: "evaluation";
  deleted: true;
}

/** One item with the Decision it got (null until scored). */
export interface EvaluationItem {
  object: "evaluation_item";
  index: number;
  state: State;
  questions: Questions;
  expected: Expected;
  decision: Decision<Questions> | null;
}

export interface EvaluationItemList {
  object: "list";
  data: EvaluationItem[];
  has_more: boolean;
}

/** Options of `waitForEvaluation`. */
export interface WaitOptions {
  /** Between polls, ms (default 2,000). */
  intervalMs?: number;
  /** Give up after this long, ms (default 30 minutes): the evaluation keeps running. */
  timeoutMs?: number;
  signal?: AbortSignal;
}
