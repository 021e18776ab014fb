import { z } from "zod";
import { REQUEST_ID_PATTERN } from "./ids";
import type { JsonValue } from "./json";

/**
 * Public shapes of `POST /v1/decide` (spec: DecideRequest, State, Question, Decision, Usage). The wire schemas
 * (`DecideRequestWire`, `Decision`) describe the JSON as the caller sees it and feed the OpenAPI document; the
 * Worker validates with `workers/decide/validate.ts` (spec precedence over the order-preserving AST) and hands
 * on a `ValidatedDecide`, whose questions and options are ordered arrays so labels like "1", "10" keep order.
 */

export const MODEL_NAME_PATTERN = /^svc-[0-9]+(\.[0-9]+\.[0-9]+)?$/;
export const QUESTION_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const QUESTION_TYPES = ["pick", "rate", "check"] as const;
export const FALLBACK_MODES = ["allow", "never"] as const;
export const DEFAULT_MODEL = "svc-1";

/** Field limits of the spec ("Field limits", "State", "Question"); characters are Unicode code points. */
export const FIELD_LIMITS = {
  stateChars: 65_536,
  stateDepth: 32,
  stateKeyChars: 256,
  questions: 32,
  instructionsChars: 4_000,
  criteriaChars: 4_000,
  criteriaItems: 20,
  criteriaItemChars: 500,
  options: 255,
  labelChars: 100,
  descriptionChars: 1_000,
  minLevels: 2,
  maxLevels: 10,
  levelChars: 200,
} as const;

export type QuestionType = (typeof QUESTION_TYPES)[number];
export type FallbackMode = (typeof FALLBACK_MODES)[number];

const Criteria = z.union([z.string().min(1).max(4_000), z.array(z.string().min(1).max(500)).min(1).max(20)]);
const QuestionCommon = {
  instructions: z.string().min(1).max(4_000),
  criteria: Criteria.nullable().optional(),
  min_confidence: z.number().min(0).max(1).optional(),
};

export const PickQuestionWire = z.strictObject({
  type: z.literal("pick"),
  ...QuestionCommon,
  options: z
    .record(z.string().min(1).max(100), z.string().min(1).max(1_000).nullable())
    .meta({ minProperties: 1, maxProperties: 255 }),
});
export const RateQuestionWire = z.strictObject({
  type: z.literal("rate"),
  ...QuestionCommon,
  levels: z.array(z.string().min(1).max(200)).min(2).max(10),
});
export const CheckQuestionWire = z.strictObject({ type: z.literal("check"), ...QuestionCommon });
export const QuestionWire = z.discriminatedUnion("type", [
  PickQuestionWire,
  RateQuestionWire,
  CheckQuestionWire,
]);

/** DecideRequest as JSON (documentation shape; runtime validation is `validateDecideRequest`). */
export const DecideRequestWire = z.strictObject({
  model: z.string().regex(MODEL_NAME_PATTERN).optional(),
  state: z.union([
    z.string().min(1).max(65_536),
    z.record(z.string(), z.unknown()).meta({ minProperties: 1 }),
    z.array(z.unknown()).min(1),
  ]),
  // The document states the counts and the id pattern; zod records carry neither into JSON Schema.
  questions: z
    .record(z.string().regex(QUESTION_ID_PATTERN), QuestionWire)
    .meta({ minProperties: 1, maxProperties: 32, propertyNames: { pattern: QUESTION_ID_PATTERN.source } }),
  fallback: z.enum(FALLBACK_MODES).optional(),
});
export type DecideRequestWire = z.infer<typeof DecideRequestWire>;

const Probability = z.number().min(0).max(1);
/** Pattern of a calibration's id (issue 44: an account's calibration of one question). */
export const CALIBRATION_ID_PATTERN = /^calib_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Present only on an answer an account's calibration computed; it overrides the Decision's `calibration`. */
const AnswerCalibration = z.string().regex(CALIBRATION_ID_PATTERN).optional().meta({
  description:
    "The account's calibration (`calib_…`) that answered this question, fitted on the account's own labels; absent when the version's own map answered (the Decision's `calibration`).",
});

export const PickAnswer = z.object({
  type: z.literal("pick"),
  choice: z.string(),
  probabilities: z.record(z.string(), Probability),
  confidence: Probability,
  abstained: z.boolean(),
  calibration: AnswerCalibration,
});
export const RateAnswer = z.object({
  type: z.literal("rate"),
  rating: z.number().min(0),
  levels: z.array(z.string()),
  probabilities: z.array(Probability),
  confidence: Probability,
  abstained: z.boolean(),
  calibration: AnswerCalibration,
});
export const CheckAnswer = z.object({
  type: z.literal("check"),
  probability: Probability,
  confidence: Probability,
  abstained: z.boolean(),
  calibration: AnswerCalibration,
});
export const Answer = z.discriminatedUnion("type", [PickAnswer, RateAnswer, CheckAnswer]);
export type Answer = z.infer<typeof Answer>;

export const Usage = z.object({
  input_tokens: z.number().int().min(1),
  state_tokens: z.number().int().min(1),
  question_tokens: z.number().int().min(1),
  charge_micro_cents: z.number().int().min(0),
  unit_price_micro_cents: z.number().int().min(0),
  tier: z.enum(["t1", "t2", "t3", "test"]),
});
export type Usage = z.infer<typeof Usage>;
/** The token counts of a validated request (step 6); the charge follows from them. */
export type TokenCounts = Pick<Usage, "input_tokens" | "state_tokens" | "question_tokens">;

export const Decision = z.object({
  id: z.string().regex(REQUEST_ID_PATTERN),
  object: z.literal("decision"),
  created: z.number().int(),
  model: z.string(),
  served_by: z.enum(["gpu", "fallback"]),
  calibration: z.string().regex(/^cal-[0-9]{8}-[0-9]+$/),
  answers: z.record(z.string(), Answer),
  usage: Usage,
});
export type Decision = z.infer<typeof Decision>;

/** One pick option, in the caller's key order. */
export interface PickOption {
  label: string;
  description: string | null;
}

interface QuestionBase {
  id: string;
  instructions: string;
  /** `null` when absent or sent as null. */
  criteria: string | string[] | null;
  min_confidence?: number;
}
export interface PickQuestion extends QuestionBase {
  type: "pick";
  options: PickOption[];
}
export interface RateQuestion extends QuestionBase {
  type: "rate";
  levels: string[];
}
export interface CheckQuestion extends QuestionBase {
  type: "check";
}
export type ValidatedQuestion = PickQuestion | RateQuestion | CheckQuestion;

/** A DecideRequest that passed step 3 (schema), with defaults applied and order kept. */
export interface ValidatedDecide {
  /** As sent, or `svc-1` when absent. */
  model: string;
  state: JsonValue;
  /** In the caller's order. */
  questions: ValidatedQuestion[];
  fallback: FallbackMode;
}
