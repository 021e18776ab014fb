/**
 * Review rules and their queue (issue 51): which of the account's decides on one question are kept for a person to
 * label, the kept items, and the loop that turns the labels into an evaluation and a calibration.
 */
import type { Answer, Question, State } from "./decide-types.js";

/** Which decides a rule keeps; at least one of them must keep something. */
export interface ReviewRuleWhen {
  /** Those whose answer abstained (`min_confidence`). */
  abstained?: boolean;
  /** Those whose answer's confidence is below this (above 0, up to 1). */
  below_confidence?: number;
  /** A random share of the question's other decides (0 to 1; default 0.01), for unbiased labels. */
  sample_rate?: number;
}

/** Body of `reviews.createRule`. */
export interface CreateReviewRuleRequest {
  /** One question as a decide writes it: decides whose question has the same definition are considered. */
  question: Question;
  /** An exact version or an alias: only decides it answered; absent: any version. */
  model?: string;
  when: ReviewRuleWhen;
  /** Apply the loop's calibration unasked when it beats the active one on held-out NLL (default false). */
  auto_apply?: boolean;
}

/** Where a rule's loop stands: its last evaluation and the calibration fitted on it. */
export interface ReviewLoop {
  status: "none" | "evaluating" | "fitted" | "applied" | "failed";
  evaluation: string | null;
  calibration: string | null;
  error: { code: string; message: string } | null;
}

/** A review rule (`rrule_…`). */
export interface ReviewRule {
  id: string;
  object: "review_rule";
  question: Question;
  model: string | null;
  when: { abstained: boolean; below_confidence: number | null; sample_rate: number };
  auto_apply: boolean;
  /** Its creator's: a test key's rule keeps only test decides. */
  mode: "live" | "test";
  counts: { pending: number; labelled: number; skipped: number; kept: number };
  /** The rule kept its 10,000 items and keeps no more. */
  full: boolean;
  loop: ReviewLoop;
  created: number;
}

export interface ReviewRuleList {
  object: "list";
  data: ReviewRule[];
  has_more: boolean;
}

export interface DeletedReviewRule {
  id: string;
  object: "review_rule";
  deleted: true;
}

/** A pick's option label, a rate's level label, or a check's true / false. */
export type ReviewLabel = string | boolean;

/** A kept decide (`rev_…`): the state, the question and the answer as the decide had them. */
export interface Review {
  id: string;
  object: "review";
  rule: string;
  request_id: string;
  model: string;
  question_id: string;
  state: State;
  question: Question;
  answer: Answer;
  status: "pending" | "labelled" | "skipped";
  label: ReviewLabel | null;
  created: number;
  reviewed: number | null;
  expires_at: number;
}

export interface ReviewList {
  object: "list";
  data: Review[];
  has_more: boolean;
}

/** `reviews.next`: the item claimed for this caller for 120 s, or null when none is left. */
export interface ReviewClaim {
  object: "review_claim";
  review: Review | null;
  claimed_until: number | null;
}

/** Query of `reviews.listRules`. */
export interface ReviewRuleListQuery {
  limit?: number;
  starting_after?: string;
}

/** Query of `reviews.list`. */
export interface ReviewListQuery {
  rule?: string;
  /** A question's fingerprint (64 hex) or a review rule id. */
  question?: string;
  status?: "pending" | "labelled" | "skipped";
  limit?: number;
  starting_after?: string;
}
