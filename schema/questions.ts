/**
 * Shapes of the question routes (issue 52: each question the account asks, its answer mix over time and its
 * drift), shared by the Worker's declarations, the OpenAPI document, the SDK and the tests.
 */
import { z } from "@hono/zod-openapi";
import { CALIBRATION_ID_PATTERN } from "./decide";
import { Granularity } from "./usage";

/** `qst_` + 26 Crockford base32 characters: the first 130 bits of the question's fingerprint. */
export const QUESTION_RESOURCE_ID_PATTERN = /^qst_[0-9A-HJKMNP-TV-Z]{26}$/;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The question's id from its fingerprint (SHA-256 hex of its definition, the version left out). */
export function questionResourceId(fingerprintHex: string): string {
  const bits = [...fingerprintHex.slice(0, 33)]
    .map((h) => Number.parseInt(h, 16).toString(2).padStart(4, "0"))
    .join("");
  let out = "qst_";
  for (let i = 0; i < 26; i++) out += CROCKFORD[Number.parseInt(bits.slice(i * 5, i * 5 + 5), 2)];
  return out;
}

/** The drift statistic (docs/decisions.md, "Question drift"): Jensen–Shannon distance, base 2, in [0, 1]. */
export const DRIFT_STATISTIC = "jensen_shannon_distance";
/** The threshold a question drifts above unless the account sets its own. */
export const DEFAULT_DRIFT_THRESHOLD = 0.1;
/** Fewest answers each window needs before a version's drift is computed. */
export const MIN_DRIFT_ANSWERS = 20;

const questionId = z
  .string()
  .regex(QUESTION_RESOURCE_ID_PATTERN)
  .openapi({ example: "qst_8Z1XQ3M0V7K2D5R9T4B6N0C1HJ" });
const at = z.iso.datetime().openapi({ description: "RFC 3339, UTC." });
const share = z.number().min(0).max(1);

/** One question of the account (GET /v1/questions). */
export const Question = z
  .object({
    id: questionId,
    object: z.literal("question"),
    mode: z.enum(["live", "test"]).openapi({ description: "The keys' mode that asked it." }),
    type: z.enum(["check", "pick", "rate"]),
    question: z.record(z.string(), z.unknown()).openapi({
      description:
        "The question as written (its calibration fingerprint): type, instructions, criteria, options or levels.",
    }),
    first_asked: at,
    last_asked: at,
    count_7d: z.number().int().min(0).openapi({ description: "Answers in the last 7 days." }),
    versions: z.array(z.string()).openapi({ description: "Exact versions that answered it, newest first." }),
    calibration: z.string().regex(CALIBRATION_ID_PATTERN).nullable(),
    review_rule: z.string().nullable().openapi({
      description: "The newest review rule of this question in the same mode (issue 51), or null.",
    }),
  })
  .openapi("Question");

export const QuestionList = z
  .object({ object: z.literal("list"), data: z.array(Question), has_more: z.boolean() })
  .openapi("QuestionList");

export const QuestionPathParams = z.object({ id: questionId });
export const QuestionListQuery = z.object({
  limit: z.string().optional().openapi({ description: "1 to 100, default 20." }),
  starting_after: z.string().optional().openapi({ description: "A question id: the page after it." }),
});
export const QuestionSeriesQuery = z.object({
  start: z.string().openapi({ description: "First UTC date included, `YYYY-MM-DD`." }),
  end: z.string().openapi({ description: "First UTC date not included." }),
  granularity: Granularity.optional(),
});

/** One bucket of a question's series (empty buckets: count 0, nulls). */
export const QuestionBucket = z
  .object({
    start: at,
    model: z.string().nullable().openapi({ description: "The version with most answers in the bucket." }),
    models: z.record(z.string(), z.number().int()).openapi({ description: "Answers per version." }),
    count: z.number().int().min(0),
    mix: z
      .union([z.record(z.string(), share), z.array(share)])
      .nullable()
      .openapi({
        description: "Share per option (pick), per level (rate) or of `yes` / `no` (check).",
      }),
    mean_p_yes: share.nullable().optional().openapi({ description: "Check: mean probability of yes." }),
    histogram: z.array(share).nullable().optional().openapi({
      description: "Check: share of answers per tenth of P(yes), [0, 0.1) … [0.9, 1].",
    }),
    mean_confidence: share.nullable(),
    abstain_rate: share.nullable(),
  })
  .openapi("QuestionBucket");

export const QuestionSeries = z
  .object({
    object: z.literal("question_series"),
    question: questionId,
    type: z.enum(["check", "pick", "rate"]),
    start: z.iso.date(),
    end: z.iso.date(),
    granularity: Granularity,
    data: z.array(QuestionBucket),
  })
  .openapi("QuestionSeries");

const window = z
  .object({ start: at, end: at, count: z.number().int().min(0) })
  .openapi({ description: "A window of answers [start, end)." });

/** GET /v1/questions/{id}/drift (and the `question.drifted` event's `data`). */
export const QuestionDrift = z
  .object({
    object: z.literal("question_drift"),
    question: questionId,
    model: z.string().nullable().openapi({ description: "The version compared (within itself only)." }),
    statistic: z.literal(DRIFT_STATISTIC),
    value: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .openapi({ description: "Null until both windows have answers." }),
    threshold: z.number().min(0).max(1),
    reference: z
      .object({
        start: at.nullable(),
        end: at.nullable(),
        count: z.number().int().min(0),
        source: z.enum(["first_week", "reset", "calibration"]).openapi({
          description:
            "`calibration`: the active calibration's evaluation on this version (no window of time); `first_week`: the first seven UTC days the version was asked; `reset`: the seven days from a reset.",
        }),
        calibration: z.string().regex(CALIBRATION_ID_PATTERN).nullable(),
        complete: z.boolean().openapi({ description: "False while the reference week is still running." }),
      })
      .openapi({ description: "What the last 7 days are compared with." }),
    current: window,
    drifted: z.boolean(),
  })
  .openapi("QuestionDrift");

/** Body of POST /v1/questions/{id}/drift: a new threshold, or a reset of the reference. */
export const UpdateDriftWire = z
  .strictObject({
    threshold: z.number().gt(0).max(1).optional(),
    reset_reference: z.literal(true).optional(),
  })
  .openapi("UpdateQuestionDrift");
