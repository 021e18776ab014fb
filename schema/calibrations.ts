/**
 * Shapes of the calibration routes (issue 44: an evaluation fits a calibration for one question of the
 * account's, and the account's decides on that exact version and question answer with it), shared by the
 * Worker's declarations, the OpenAPI document, the SDK and the tests.
 */
import { z } from "@hono/zod-openapi";
import { CALIBRATION_ID_PATTERN, QuestionWire } from "./decide";
import { EVALUATION_ID_PATTERN, ReliabilityBin, Threshold } from "./evaluations";

export { CALIBRATION_ID_PATTERN };
/** Where a calibration is (issue 49: a large fit runs on the account's runner). */
export const CALIBRATION_STATUSES = ["fitting", "active", "inactive", "failed"] as const;
/** Active calibrations one account may have at once. */
export const MAX_ACTIVE_CALIBRATIONS = 1000;
/** Fewest labels a fit is made on: a check needs this many of each answer… */
export const MIN_CHECK_LABELS_EACH = 30;
/** …a pick or a rate this many items. */
export const MIN_ITEMS = 50;
/**
 * The state-reading candidate's work bound (issue 49): its labelled states' distinct word and word-pair buckets,
 * summed, times the question's weight rows (a check 1; a pick or rate its options or levels). Its fit's time
 * grows with that sum (docs/decisions.md: 10–20 µs each on the 2-core box under load, so ≤ 30–60 s at the bound,
 * inside a Worker's 5-minute CPU limit with room); above it only the maps are tried, and the calibration says so.
 * 1,000 checks of 2,048 words are inside it; a pick of 255 options of about 40 items.
 */
export const MAX_STATE_WORDS_WORK = 3_000_000;

const calibrationId = z
  .string()
  .regex(CALIBRATION_ID_PATTERN)
  .openapi({ example: "calib_01JD0000000000000000000000" });
const unixSeconds = z.number().int().openapi({ description: "Unix time in seconds." });
const rate = z.number().min(0).max(1);

/** Body of `createCalibration` / `createConsoleCalibration`. */
export const CreateCalibrationWire = z
  .strictObject({
    evaluation: z.string().regex(EVALUATION_ID_PATTERN).openapi({
      description: "A `done` evaluation of the account, scored with unrounded distributions.",
      example: "eval_01JD0000000000000000000000",
    }),
    question: z.string().openapi({
      description: "A question id of the evaluation's items; every item that has it defines it the same way.",
      example: "refund",
    }),
  })
  .openapi("CreateCalibration");

export const CalibrationMetrics = z
  .object({
    n: z.number().int(),
    accuracy: rate,
    ece15: rate.openapi({ description: "ECE over 15 equal bins of the predicted label's probability." }),
    ece15_noise_floor: rate.openapi({
      description:
        "The ECE-15 a perfectly calibrated answer with these confidences shows from sampling noise alone.",
    }),
    nll: z.number().min(0).openapi({ description: "Mean negative log-likelihood of the expected labels." }),
    brier: z.number().min(0),
    auc: rate.nullable().openapi({ description: "Check: ROC AUC of the probability of yes." }),
    reliability: z.array(ReliabilityBin),
    thresholds: z
      .array(Threshold)
      .openapi({ description: "The smallest `min_confidence` for accuracy 0.90, 0.95 and 0.99." }),
  })
  .openapi("CalibrationMetrics");

/** What a state-reading calibration read (issue 49); null for a map. */
export const CalibrationFeatures = z
  .object({
    kind: z.literal("state_words"),
    procedure: z.string().openapi({
      description:
        "How the rendered state becomes words: Unicode NFC, lower case, runs of letters and digits (the first 2,048), words and word pairs hashed by FNV-1a 32-bit over UTF-8 into `buckets` buckets; sublinear tf × idf, L2-normalised.",
      example: "nfc-lower-letter-digit-runs-2048-words-pairs-fnv1a32-2^18",
    }),
    buckets: z.number().int(),
    vocabulary: z
      .number()
      .int()
      .openapi({ description: "Buckets the model reads (seen in at least 2 labelled items)." }),
    l2: z
      .number()
      .positive()
      .openapi({ description: "L2 weight on the word weights, chosen by the same folds." }),
    model_bytes: z.number().int().openapi({
      description: "Size of the stored model (at most 262,144: larger fits keep their largest weights).",
    }),
  })
  .openapi("CalibrationFeatures");

export const Calibration = z
  .object({
    id: calibrationId,
    object: z.literal("calibration"),
    model: z.string().openapi({ description: "The exact version it applies to.", example: "svc-1.5.1" }),
    evaluation: z.string().openapi({ description: "The evaluation it was fitted on." }),
    question_id: z.string().openapi({ description: "The question's id in the evaluation's items." }),
    question: QuestionWire.nullable().meta({
      description:
        "The question as written (templates unrendered, without `min_confidence`): decides whose question matches it exactly answer with this calibration. Null while `fitting` and when `failed` (as are `method`, `map`, `n` and `metrics`).",
    }),
    method: z.enum(["temperature", "temperature_bias", "state_words"]).nullable().openapi({
      description:
        "`temperature`: one temperature on the log-probabilities; `temperature_bias`: also a bias (check: on yes; pick and rate: per option or level); `state_words`: a linear model over the words of the rendered state stacked with the version's answer (its log-probabilities with a temperature and a bias), so that where the version already knows its answer still counts. Chosen by cross-validated NLL.",
    }),
    features: CalibrationFeatures.nullable().openapi({
      description:
        "`state_words`: what the model read of the state; null for a map (it reads the version's answer only).",
    }),
    map: z
      .object({
        temperature: z.number().positive(),
        bias: z.array(z.number()).openapi({ description: "Per option or level in order; check: [yes, no]." }),
      })
      .nullable(),
    n: z.number().int().nullable().openapi({ description: "Labelled items the map was fitted on." }),
    metrics: z
      .object({
        folds: z.number().int(),
        before: CalibrationMetrics,
        after: CalibrationMetrics,
        methods: z
          .array(
            z.object({
              method: z.enum(["temperature", "temperature_bias", "state_words"]),
              l2: z.number().positive().optional(),
              metrics: CalibrationMetrics,
            }),
          )
          .optional()
          .openapi({
            description:
              "Every method tried, with its cross-validated metrics on the same folds: the one with the lowest NLL is `method` (ties: the simpler).",
          }),
        not_tried: z
          .array(
            z.object({
              method: z.literal("state_words"),
              reason: z.literal("work_bound"),
              work: z.number().int(),
              bound: z.number().int(),
            }),
          )
          .optional()
          .openapi({
            description:
              "A method not tried, and why: `work_bound` when the labelled states' word buckets × the question's weight rows (`work`) exceed `bound`; the maps were chosen among alone.",
          }),
      })
      .nullable()
      .openapi({
        description:
          "Cross-validated (K folds: each fold's answers calibrated by a calibration fitted on the other folds): `before` with the version's map, `after` with the account's.",
      }),
    mode: z.enum(["live", "test"]).openapi({
      description:
        "The mode of its creator: a test key's is `test` and answers only test decides; a live key's or the console's is `live` and answers live decides, and test decides of that question while no `test` one is active. A key sees only its own mode's.",
    }),
    status: z.enum(CALIBRATION_STATUSES).openapi({
      description:
        "`fitting`: the evaluation was above the in-request bound, so the account's runner fits it (create answered 202); it never answers decides. `active`: it answers decides. `inactive`: replaced, deleted, or deleted while fitting. `failed`: the fit ended with the error a synchronous create would have answered (`error`); nothing was applied.",
    }),
    active: z.boolean(),
    created: unixSeconds,
    deactivated: unixSeconds
      .nullable()
      .openapi({ description: "When it was replaced or deleted, or when it failed." }),
    error: z
      .object({ code: z.string(), param: z.string().optional(), message: z.string() })
      .nullable()
      .openapi({
        description:
          "`failed`: the error a synchronous create would have answered (e.g. `calibration_no_gain`, `too_few_labels`; `internal_error` when the fit did not finish within its cap).",
      }),
  })
  .openapi("Calibration");

export const CalibrationPreview = Calibration.extend({
  id: z.null(),
  object: z.literal("calibration_preview"),
}).openapi("CalibrationPreview");

export const CalibrationList = z
  .object({ object: z.literal("list"), data: z.array(Calibration), has_more: z.boolean() })
  .openapi("CalibrationList");

export const CalibrationPathParams = z.object({ id: calibrationId });
export const CalibrationListQuery = z.object({
  limit: z.string().optional().openapi({ description: "1 to 100, default 20." }),
  starting_after: z.string().optional().openapi({ description: "A calibration id: the page after it." }),
});
