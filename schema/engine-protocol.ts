import { z } from "zod";

/**
 * The wire contract between the edge and a GPU worker (`POST /v1/score`, signed with schema/signing.ts).
 * The edge sends what it billed, already rendered piece by piece (state text, and per question the
 * instructions and criteria with `{{path}}` values substituted, options and levels in order); the engine
 * chooses its own framing around those pieces (see docs/quality.md) and never re-validates the public schema.
 */
export const ScoreQuestion = z.discriminatedUnion("type", [
  z.object({
    id: z.string(),
    type: z.literal("pick"),
    instructions: z.string(),
    criteria: z.array(z.string()),
    options: z
      .array(z.object({ label: z.string(), description: z.string().nullable() }))
      .min(1)
      .max(255),
    min_confidence: z.number().min(0).max(1).optional(),
  }),
  z.object({
    id: z.string(),
    type: z.literal("rate"),
    instructions: z.string(),
    criteria: z.array(z.string()),
    levels: z.array(z.string()).min(2).max(10),
    min_confidence: z.number().min(0).max(1).optional(),
  }),
  z.object({
    id: z.string(),
    type: z.literal("check"),
    instructions: z.string(),
    criteria: z.array(z.string()),
    min_confidence: z.number().min(0).max(1).optional(),
  }),
]);
export type ScoreQuestion = z.infer<typeof ScoreQuestion>;

export const ScoreRequest = z.object({
  request_id: z.string(),
  /** Exact model version, e.g. `svc-1.0.0`; the worker answers 404 if it does not serve it. */
  model: z.string(),
  /** The rendered state, exactly as billed. */
  state: z.string(),
  questions: z.array(ScoreQuestion).min(1).max(32),
  /**
   * A replay's: the numerics class that computed the original (docs/decisions.md, "Numerics classes"); a worker
   * of another class answers 404 `model_not_served` instead of computing other bytes.
   */
  numerics_class: z.string().optional(),
  /**
   * `batch` for evaluation items: they wait behind live calls (decides, the default) in the worker's queues and
   * leave a sequence of each lane free for them. Ordering only; the bytes do not depend on it.
   */
  priority: z.enum(["live", "batch"]).optional(),
  /**
   * Also return each answer's unrounded distribution (`distribution`): what an account's calibration is fitted
   * on (evaluations) and applied to (decides on a calibrated question). The answers themselves are unchanged.
   */
  distributions: z.boolean().optional(),
});
export type ScoreRequest = z.infer<typeof ScoreRequest>;

export const PickAnswer = z.object({
  type: z.literal("pick"),
  choice: z.string(),
  /** Label → probability, in option order (the engine returns pairs to keep the order of integer-like labels). */
  probabilities: z.array(z.tuple([z.string(), z.number()])),
  confidence: z.number(),
  abstained: z.boolean(),
});
export const RateAnswer = z.object({
  type: z.literal("rate"),
  rating: z.number(),
  levels: z.array(z.string()),
  probabilities: z.array(z.number()),
  confidence: z.number(),
  abstained: z.boolean(),
});
export const CheckAnswer = z.object({
  type: z.literal("check"),
  probability: z.number(),
  confidence: z.number(),
  abstained: z.boolean(),
});
export const EngineAnswer = z.discriminatedUnion("type", [PickAnswer, RateAnswer, CheckAnswer]);
export type EngineAnswer = z.infer<typeof EngineAnswer>;

export const ScoreResponse = z.object({
  model: z.string(),
  calibration: z.string().regex(/^cal-[0-9]{8}-[0-9]+$/),
  /**
   * One answer per question, in request order, with the question's id; with `distributions` also the version's
   * unrounded distribution the answer was shaped from (pick and rate in option or level order; check [yes, no]).
   */
  answers: z.array(
    z.object({ id: z.string(), answer: EngineAnswer, distribution: z.array(z.number()).optional() }),
  ),
  meter: z.object({ tokens_evaluated: z.number().int(), tokens_reused: z.number().int() }),
  /** The worker's numerics class (`gpu-worker/src/numerics.ts`); absent from stand-ins that have none. */
  numerics_class: z.string().optional(),
});
export type ScoreResponse = z.infer<typeof ScoreResponse>;

/** Error body of a GPU worker; `overloaded` (HTTP 503) means the queue is full → edge 503 `no_capacity`. */
export const EngineError = z.object({
  error: z.enum([
    "bad_request",
    "unauthorized",
    "model_not_served",
    "too_many_tokens",
    "overloaded",
    "internal",
  ]),
  message: z.string(),
});
export type EngineError = z.infer<typeof EngineError>;
