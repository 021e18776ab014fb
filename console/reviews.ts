/** The console's view of review rules and their queue (issue 51): the API's shapes and its console routes. */
import type { BarAnswer } from "./answer-bars";
import { ApiError, errorText } from "./api";
import { type LoopStatus, REVIEW_LEADS, type ReviewQuestion } from "./review-words";

/** `/v1/console/review-rules`: create, list, get, delete; `…/{id}/next`, `…/{id}/evaluations`. */
export const REVIEW_RULES = "/v1/console/review-rules";
/** `/v1/console/reviews`: list; `…/{id}/label`, `…/{id}/skip`. */
export const REVIEWS = "/v1/console/reviews";

/** The loop of a rule: its last evaluation and the calibration fitted on it. */
export interface ReviewLoop {
  status: LoopStatus;
  evaluation: string | null;
  calibration: string | null;
  error: { code: string; message: string } | null;
}

/** A review rule (schema/reviews.ts `ReviewRule`). */
export interface ReviewRule {
  id: string;
  object: "review_rule";
  question: ReviewQuestion;
  model: string | null;
  when: { abstained: boolean; below_confidence: number | null; sample_rate: number };
  auto_apply: boolean;
  mode: "live" | "test";
  counts: { pending: number; labelled: number; skipped: number; kept: number };
  full: boolean;
  loop: ReviewLoop;
  created: number;
}

/** svc's answer as the decide gave it (and the calibration that answered, if one did). */
export type ReviewAnswer = BarAnswer & { calibration?: string };

/** A kept item (schema/reviews.ts `Review`). */
export interface Review {
  id: string;
  object: "review";
  rule: string;
  request_id: string;
  model: string;
  question_id: string;
  state: unknown;
  question: ReviewQuestion;
  answer: ReviewAnswer;
  status: "pending" | "labelled" | "skipped";
  label: string | boolean | null;
  created: number;
  reviewed: number | null;
  expires_at: number;
}

/** `POST …/review-rules/{id}/next`: the claimed item, or none left. */
export interface ReviewClaim {
  object: "review_claim";
  review: Review | null;
  claimed_until: number | null;
}

/** The path of one rule (and its sub-routes). */
export const rulePath = (id: string, tail = "") => `${REVIEW_RULES}/${encodeURIComponent(id)}${tail}`;
/** The path of one review's action. */
export const reviewPath = (id: string, action: "label" | "skip") =>
  `${REVIEWS}/${encodeURIComponent(id)}/${action}`;

/** Another reviewer got there first (409), or the item is gone (404): the queue moves on. */
export function takenElsewhere(e: unknown): boolean {
  return e instanceof ApiError && (e.code === "review_already_reviewed" || e.code === "review_not_found");
}

/** A failed review call in words: what it means, then the API's own sentence. */
export function reviewErrorText(e: unknown): string {
  const lead = e instanceof ApiError ? REVIEW_LEADS[e.code] : undefined;
  return lead && e instanceof ApiError ? `${lead} ${e.message}` : errorText(e);
}
