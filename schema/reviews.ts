/**
 * Shapes of the review routes (issue 51: a person labels the answers svc was unsure of, and the labels make an
 * evaluation and a calibration), shared by the Worker's declarations, the OpenAPI document, the SDK and the tests.
 */
import { z } from "@hono/zod-openapi";
import { Answer, DecideRequestWire, QuestionWire } from "./decide";
import { Evaluation } from "./evaluations";
import { REVIEW_ID_PATTERN, REVIEW_RULE_ID_PATTERN, REVIEW_STATUSES } from "./review-limits";

export {
  CLAIM_SECONDS,
  DEFAULT_SAMPLE_RATE,
  MAX_KEPT_PER_RULE,
  MAX_REVIEW_RULES,
  REVIEW_ID_PATTERN,
  REVIEW_RETENTION_DAYS,
  REVIEW_RULE_ID_PATTERN,
  REVIEW_STATUSES,
  type ReviewStatus,
} from "./review-limits";

const unixSeconds = z.number().int().openapi({ description: "Unix time in seconds." });
const rate = z.number().min(0).max(1);
const ruleId = z
  .string()
  .regex(REVIEW_RULE_ID_PATTERN)
  .openapi({ example: "rrule_01JD0000000000000000000000" });
const reviewId = z.string().regex(REVIEW_ID_PATTERN).openapi({ example: "rev_01JD0000000000000000000000" });

const When = z
  .strictObject({
    abstained: z
      .boolean()
      .optional()
      .openapi({ description: "Keep the decides whose answer abstained (`min_confidence`)." }),
    below_confidence: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .openapi({ description: "Keep the decides whose answer's confidence is below this." }),
    sample_rate: rate.optional().openapi({
      description:
        "Also keep this random share of the question's other decides (unbiased labels for the calibration); default 0.01.",
    }),
  })
  .openapi("ReviewRuleWhen");

/** Body of `createReviewRule` / `createConsoleReviewRule`. */
export const CreateReviewRuleWire = z
  .strictObject({
    question: QuestionWire.meta({
      description:
        "One question as a decide writes it: decides whose question has the same definition (type, instructions, criteria, options or levels) are considered.",
    }),
    model: z.string().optional().openapi({
      description: "An exact version or an alias: only decides answered by it; absent: any version.",
      example: "svc-1.4.0",
    }),
    when: When,
    auto_apply: z.boolean().optional().openapi({
      description:
        "Apply the loop's calibration without asking when it beats the active one (or the version's own answer) on held-out NLL; default false.",
    }),
  })
  .openapi("CreateReviewRule");

export const ReviewRule = z
  .object({
    id: ruleId,
    object: z.literal("review_rule"),
    question: QuestionWire,
    model: z.string().nullable(),
    when: z.object({ abstained: z.boolean(), below_confidence: rate.nullable(), sample_rate: rate }),
    auto_apply: z.boolean(),
    mode: z.enum(["live", "test"]).openapi({
      description:
        "The mode of its creator: a test key's rule keeps only test decides; a live key's or the console's only live ones.",
    }),
    counts: z.object({
      pending: z.number().int(),
      labelled: z.number().int(),
      skipped: z.number().int(),
      kept: z
        .number()
        .int()
        .openapi({ description: "Items kept over the rule's life (the cap counts these)." }),
    }),
    full: z.boolean().openapi({ description: "The rule kept its 10,000 items and keeps no more." }),
    loop: z
      .object({
        status: z.enum(["none", "evaluating", "fitted", "applied", "failed"]),
        evaluation: z.string().nullable(),
        calibration: z.string().nullable(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
      })
      .openapi({
        description:
          "The last `createReviewRuleEvaluation`: its evaluation, the calibration fitted once it is done (`fitted`: stored, not applied; `applied`: active).",
      }),
    created: unixSeconds,
  })
  .openapi("ReviewRule");

export const ReviewRuleList = z
  .object({ object: z.literal("list"), data: z.array(ReviewRule), has_more: z.boolean() })
  .openapi("ReviewRuleList");

export const DeletedReviewRule = z
  .object({ id: ruleId, object: z.literal("review_rule"), deleted: z.literal(true) })
  .openapi("DeletedReviewRule");

export const ReviewLabel = z
  .union([z.string(), z.boolean()])
  .openapi({ description: "A pick's option label, a rate's level label, or a check's true / false." });

export const Review = z
  .object({
    id: reviewId,
    object: z.literal("review"),
    rule: ruleId,
    request_id: z.string(),
    model: z.string(),
    question_id: z.string().openapi({ description: "The question's id in that decide." }),
    state: DecideRequestWire.shape.state,
    question: QuestionWire,
    answer: Answer.meta({ description: "The answer as the decide gave it." }),
    status: z.enum(REVIEW_STATUSES),
    label: ReviewLabel.nullable(),
    created: unixSeconds,
    reviewed: unixSeconds.nullable(),
    expires_at: unixSeconds.openapi({ description: "Deleted then (30 days after it was kept)." }),
  })
  .openapi("Review");

export const ReviewList = z
  .object({ object: z.literal("list"), data: z.array(Review), has_more: z.boolean() })
  .openapi("ReviewList");

export const NextReview = z
  .object({
    object: z.literal("review_claim"),
    review: Review.nullable(),
    claimed_until: unixSeconds.nullable(),
  })
  .openapi("ReviewClaim");

export const LabelReviewWire = z.strictObject({ label: ReviewLabel }).openapi("LabelReview");

export const ReviewRulePathParams = z.object({ id: ruleId });
export const ReviewPathParams = z.object({ id: reviewId });
export const ReviewRuleListQuery = z.object({
  limit: z.string().optional().openapi({ description: "1 to 100, default 20." }),
  starting_after: z.string().optional().openapi({ description: "A review rule id: the page after it." }),
});
export const ReviewListQuery = z.object({
  rule: z.string().optional().openapi({ description: "A review rule id: only its items." }),
  question: z.string().optional().openapi({
    description: "A question's fingerprint (64 hex, as calibrations compute it) or a review rule id.",
  }),
  status: z.enum(REVIEW_STATUSES).optional(),
  limit: z.string().optional().openapi({ description: "1 to 100, default 20." }),
  starting_after: z.string().optional().openapi({ description: "A review id: the page after it." }),
});

/** 201 of `createReviewRuleEvaluation`: the ordinary evaluation. */
export const ReviewRuleEvaluation = Evaluation;
