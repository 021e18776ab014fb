/**
 * The model catalog (spec "Versioning", "Model limits reported by GET /v1/models"). Versioned with the code:
 * aliases, exact versions, retired versions, their limits and the calibration each applies.
 */

/** Limits a model version reports; the field names are the spec's. */
export interface ModelLimits {
  max_state_tokens: number;
  max_question_tokens: number;
  max_total_tokens: number;
  max_questions: number;
  max_options: number;
  max_levels: number;
  exact_option_probabilities: number;
}

export type ServedBy = "gpu" | "fallback";
export type ModelStatus = "active" | "retired";

export interface ModelVersion {
  /** Exact version, `svc-N.N.N` (GPU) or `svc-fallback-N.N.N` (fallback). */
  id: string;
  /** The alias that resolves to this version, if any. */
  alias: string | null;
  served_by: ServedBy;
  status: ModelStatus;
  /** Calibration artifact the version applies (`cal-YYYYMMDD-N`). */
  calibration: string;
  limits: ModelLimits;
}

/** Limits shared by every v1 version; only `exact_option_probabilities` differs by serving path. */
export const V1_LIMITS = {
  max_state_tokens: 16_384,
  max_question_tokens: 4_096,
  max_total_tokens: 16_384,
  max_questions: 32,
  max_options: 255,
  max_levels: 10,
  exact_option_probabilities: 255,
} as const satisfies ModelLimits;

/** All questions together, in billable tokens (spec Limits; not yet reported by the endpoint). */
export const MAX_ALL_QUESTIONS_TOKENS = 4_096;

/**
 * The calibration artifact (`gpu-worker/calibration/<name>.json`) the current GPU version applies. Pinned
 * per exact version, so a replay of a GPU original is computed with the same calibration.
 */
export const CURRENT_CALIBRATION = "cal-20261123-3";

/** What `svc-1.3.0` applies, for ever: rate without a position bias; option descriptions not read (docs/quality.md). */
export const SVC_1_3_0_CALIBRATION = "cal-20261123-2";

/** What `svc-1.2.0` applies, for ever: pick by a partial content-free map over phrasings (docs/quality.md, issue #13). */
export const SVC_1_2_0_CALIBRATION = "cal-20261123-1";

/** What `svc-1.1.0` applies, for ever: fitted on real text, one phrasing (docs/quality.md, issue #13). */
export const SVC_1_1_0_CALIBRATION = "cal-20261123-0";

/** What `svc-1.0.0` applies, for ever: fitted on the computed set (docs/quality.md, issue #13). */
export const SVC_1_0_0_CALIBRATION = "cal-20261121-3";

/** The fallback path reads the hosted model's code distribution as it is: the identity calibration. */
export const FALLBACK_CALIBRATION = "cal-20261121-0";

/** Every version the service knows, newest first. */
export const MODELS: readonly ModelVersion[] = [
  {
    id: "svc-1.4.0",
    alias: "svc-1",
    served_by: "gpu",
    status: "active",
    calibration: CURRENT_CALIBRATION,
    limits: V1_LIMITS,
  },
  {
    id: "svc-1.3.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_3_0_CALIBRATION,
    limits: V1_LIMITS,
  },
  {
    id: "svc-1.2.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_2_0_CALIBRATION,
    limits: V1_LIMITS,
  },
  {
    id: "svc-1.1.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_1_0_CALIBRATION,
    limits: V1_LIMITS,
  },
  {
    id: "svc-1.0.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_0_0_CALIBRATION,
    limits: V1_LIMITS,
  },
  {
    id: "svc-fallback-1.0.0",
    alias: "svc-1",
    served_by: "fallback",
    status: "active",
    calibration: FALLBACK_CALIBRATION,
    limits: { ...V1_LIMITS, exact_option_probabilities: 20 },
  },
  {
    id: "svc-0.9.0",
    alias: null,
    served_by: "gpu",
    status: "retired",
    calibration: "cal-20261001-0",
    limits: V1_LIMITS,
  },
];

/** Alias → exact GPU version it resolves to. */
export const ALIASES: Readonly<Record<string, string>> = { "svc-1": "svc-1.4.0" };

/** Exact GPU version → the fallback version that may answer for its alias. */
export const FALLBACK_FOR: Readonly<Record<string, string>> = { "svc-1.4.0": "svc-fallback-1.0.0" };

/** A version by exact id. */
export function findModel(id: string): ModelVersion | undefined {
  return MODELS.find((m) => m.id === id);
}
