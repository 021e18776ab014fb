/**
 * Types of POST /v1/decide (spec: DecideRequest, Question, Decision, Usage). The answer types follow from
 * the request: with `decide()`'s const type parameter, a pick's `choice` is the union of its option labels,
 * a rate's `levels` the tuple of its levels, a check's answer a probability.
 */

/** Any JSON value. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/** The state: a text, or a JSON object or array. */
export type State = string | readonly Json[] | { readonly [key: string]: Json };

interface QuestionCommon {
  /** 1 to 4,000 characters; may contain `{{path}}` references into a JSON state. */
  instructions: string;
  /** A string, or 1 to 20 strings; `null` equals absent. */
  criteria?: string | readonly string[] | null;
  /** 0 to 1: below it the answer abstains. */
  min_confidence?: number;
}

/** Choose one of labelled options (label → description or null), shown to the model in key order. */
export interface PickQuestion<Label extends string = string> extends QuestionCommon {
  type: "pick";
  options: { readonly [L in Label]: string | null };
}

/** Place the state on 2 to 10 ordered levels, lowest first. */
export interface RateQuestion<Levels extends readonly string[] = readonly string[]> extends QuestionCommon {
  type: "rate";
  levels: Levels;
}

/** Yes or no, answered as the probability of yes. */
export interface CheckQuestion extends QuestionCommon {
  type: "check";
}

/** One question. */
export type Question = PickQuestion | RateQuestion | CheckQuestion;

/** Question id (`^[A-Za-z][A-Za-z0-9_-]{0,63}$`) → question; 1 to 32 entries. */
export type Questions = { readonly [id: string]: Question };

/** The body of POST /v1/decide. */
export interface DecideRequest<Q extends Questions = Questions> {
  /** An alias (`svc-1`) or an exact version (`svc-1.0.0`); default `svc-1`. */
  model?: string;
  state: State;
  questions: Q;
  /** `allow` (default) or `never` (keep the request on the GPU path). */
  fallback?: "allow" | "never";
}

interface AnswerCommon {
  /** How concentrated the distribution is, 0 to 1 (not a correctness guarantee). */
  confidence: number;
  /** True when `confidence` is below the question's `min_confidence`. */
  abstained: boolean;
  /**
   * The account's calibration (`calib_…`) that answered this question; absent when the version's own map did
   * (the Decision's `calibration`).
   */
  calibration?: string;
}

/** The answer to a pick: the most probable label and every label's probability, in option order. */
export interface PickAnswer<Label extends string = string> extends AnswerCommon {
  type: "pick";
  choice: Label;
  probabilities: { [L in Label]: number };
}

/** The answer to a rate: the probability-weighted level index and one probability per level. */
export interface RateAnswer<Levels extends readonly string[] = readonly string[]> extends AnswerCommon {
  type: "rate";
  /** 0 up to the number of levels minus 1. */
  rating: number;
  levels: Levels;
  probabilities: { [I in keyof Levels]: number };
}

/** The answer to a check: the probability of yes. */
export interface CheckAnswer extends AnswerCommon {
  type: "check";
  probability: number;
}

/** Any answer. */
export type Answer = PickAnswer | RateAnswer | CheckAnswer;

/** The answer type of a question type. */
export type AnswerFor<Q> = Q extends { type: "pick"; options: infer O }
  ? PickAnswer<Extract<keyof O, string>>
  : Q extends { type: "rate"; levels: infer L extends readonly string[] }
    ? RateAnswer<L>
    : Q extends { type: "check" }
      ? CheckAnswer
      : Answer;

/** Tokens and charge of one decision. */
export interface DecisionUsage {
  input_tokens: number;
  state_tokens: number;
  question_tokens: number;
  charge_micro_cents: number;
  unit_price_micro_cents: number;
  tier: "t1" | "t2" | "t3" | "test";
}

/** The 200 answer of POST /v1/decide, its answers typed by the request's questions. */
export interface Decision<Q extends Questions = Questions> {
  /** `req_` + ULID; equals `x-request-id`. */
  id: string;
  object: "decision";
  created: number;
  /** The exact version that answered. */
  model: string;
  served_by: "gpu" | "fallback";
  calibration: string;
  answers: { [Id in keyof Q]: AnswerFor<Q[Id]> };
  usage: DecisionUsage;
}
