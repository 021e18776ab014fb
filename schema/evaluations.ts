/**
 * Shapes of the evaluation routes (issue 31), shared by the Worker's declarations, the OpenAPI document, the
 * SDK and the tests.
 */
import { z } from "@hono/zod-openapi";
import { DecideRequestWire, Decision } from "./decide";

export const EVALUATION_ID_PATTERN = /^eval_[0-9A-HJKMNP-TV-Z]{26}$/;
export const EVALUATION_STATUSES = ["queued", "running", "paused", "done", "cancelled", "failed"] as const;

const evaluationId = z
  .string()
  .regex(EVALUATION_ID_PATTERN)
  .openapi({ example: "eval_01JD0000000000000000000000" });
const unixSeconds = z.number().int().openapi({ description: "Unix time in seconds." });
const rate = z.number().min(0).max(1);

/** One item of `createEvaluation`: a decide's state and questions plus the right answer to each question. */
export const EvaluationItemWire = z
  .strictObject({
    state: DecideRequestWire.shape.state,
    questions: DecideRequestWire.shape.questions,
    expected: z
      .record(z.string(), z.union([z.string(), z.boolean()]))
      .openapi({ description: "Question id → a pick's label, a rate's level, or a check's true / false." }),
  })
  .openapi("EvaluationItem");

/** Body of `createEvaluation` / `createConsoleEvaluation`. */
export const CreateEvaluationWire = z
  .strictObject({
    name: z.string().min(1).max(200).openapi({ example: "support triage, March labels" }),
    model: z.string().optional().openapi({
      description: "Alias or exact version; default `svc-1`. Pinned to its exact version at creation.",
    }),
    items: z.array(EvaluationItemWire).min(1).max(1000),
  })
  .openapi("CreateEvaluation");

export const ReliabilityBin = z.object({
  lower: rate,
  upper: rate,
  count: z.number().int(),
  mean_probability: rate.nullable(),
  accuracy: rate.nullable(),
});
const CoveragePoint = z.object({ min_confidence: rate, coverage: rate, accuracy: rate.nullable() });
export const Threshold = z.object({
  target: rate,
  min_confidence: rate
    .nullable()
    .openapi({ description: "Smallest `min_confidence` reaching the target; null if none." }),
  coverage: rate.nullable(),
});

export const QuestionMetrics = z
  .object({
    n: z.number().int(),
    accuracy: rate.openapi({ description: "Share answered right (rate: the exact level)." }),
    mean_absolute_level_error: z
      .number()
      .nullable()
      .openapi({ description: "Rate questions: mean |rating − expected level|." }),
    auc: rate.nullable().openapi({
      description: "Check questions with both answers expected: ROC AUC of the probability of yes.",
    }),
    ece15: rate.openapi({
      description: "Expected calibration error over 15 equal bins of the predicted label's probability.",
    }),
    brier: z.number().min(0),
    reliability: z.array(ReliabilityBin),
    risk_coverage: z
      .array(CoveragePoint)
      .openapi({ description: "Coverage and accuracy at each `min_confidence` step of 0.05." }),
    thresholds: z.array(Threshold).openapi({ description: "Accuracy targets 0.90, 0.95 and 0.99." }),
  })
  .openapi("EvaluationQuestionMetrics");

export const Evaluation = z
  .object({
    id: evaluationId,
    object: z.literal("evaluation"),
    name: z.string(),
    model: z
      .string()
      .openapi({ description: "The exact version the run is pinned to.", example: "svc-1.4.0" }),
    status: z.enum(EVALUATION_STATUSES),
    progress: z.object({ done: z.number().int(), total: z.number().int() }),
    usage: z.object({
      input_tokens: z.number().int().openapi({ description: "Test tokens of the scored items." }),
    }),
    created: unixSeconds,
    started: unixSeconds.nullable(),
    finished: unixSeconds.nullable(),
    resumes_at: unixSeconds
      .nullable()
      .openapi({ description: "Paused: when the daily test quota comes back." }),
    expires_at: unixSeconds.openapi({
      description: "Items and answers are deleted then (30 days after creation).",
    }),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    metrics: z
      .record(z.string(), QuestionMetrics)
      .nullable()
      .openapi({ description: "Per question id, once `done`." }),
  })
  .openapi("Evaluation");

export const EvaluationList = z
  .object({ object: z.literal("list"), data: z.array(Evaluation), has_more: z.boolean() })
  .openapi("EvaluationList");

export const DeletedEvaluation = z
  .object({ id: evaluationId, object: z.literal("evaluation"), deleted: z.literal(true) })
  .openapi("DeletedEvaluation");

export const EvaluationItem = z
  .object({
    object: z.literal("evaluation_item"),
    index: z.number().int(),
    state: DecideRequestWire.shape.state,
    questions: DecideRequestWire.shape.questions,
    expected: z.record(z.string(), z.union([z.string(), z.boolean()])),
    decision: Decision.nullable().openapi({
      description: "What the item's decide answered; null until scored.",
    }),
  })
  .openapi("EvaluationItemResult");

export const EvaluationItemList = z
  .object({ object: z.literal("list"), data: z.array(EvaluationItem), has_more: z.boolean() })
  .openapi("EvaluationItemList");

export const EvaluationPathParams = z.object({ id: evaluationId });
export const EvaluationListQuery = z.object({
  limit: z.string().optional().openapi({ description: "1 to 100, default 20." }),
  starting_after: z.string().optional().openapi({ description: "An evaluation id: the page after it." }),
});
export const EvaluationItemsQuery = z.object({
  limit: z.string().optional().openapi({ description: "1 to 1000, default 100." }),
  starting_after: z.string().optional().openapi({ description: "An item index: the page after it." }),
});
