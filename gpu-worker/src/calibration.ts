import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** Strict: a field this engine does not apply is refused at load, never ignored (the answers would differ). */
const TypeCalibration = z.strictObject({
  temperature: z.number().positive(),
  bias: z.array(z.number()),
  length_normalize: z.boolean().optional(),
  /** Optional temperature per outcome count K (key = K as a decimal string); falls back to `temperature`. */
  temperature_by_outcomes: z.record(z.string().regex(/^[0-9]+$/), z.number().positive()).optional(),
  /** Optional bias vector per outcome count K; falls back to `bias`. */
  bias_by_outcomes: z.record(z.string().regex(/^[0-9]+$/), z.array(z.number())).optional(),
  /** Contextual calibration: subtract each outcome's score on the content-free state before the affine map. */
  contextual: z.boolean().optional(),
  /**
   * Phrasings (`gpu-worker/src/phrasings.ts` ids) the question is asked in after the one state prefix; their
   * scores are averaged and mapped by `applyPhrased` (`PhraseMethod` below). Absent: one framing as before.
   */
  phrasings: z.array(z.string()).min(1).optional(),
  /** Phrasings only: weight of the mean content-free score (partial contextual calibration). */
  content_free_weight: z.number().optional(),
  /** Phrasings only: extra scale of the contextual mean per unit of phrasing agreement. */
  agreement_slope: z.number().optional(),
});

/** A calibration artifact `gpu-worker/calibration/cal-YYYYMMDD-N.json`: framing + per-type affine map. */
export const Calibration = z.object({
  version: z.string().regex(/^cal-[0-9]{8}-[0-9]+$/),
  framing: z.string(),
  /** The state the content-free scores of `contextual` types are read on. */
  content_free_state: z.string().optional(),
  types: z.object({ pick: TypeCalibration, rate: TypeCalibration, check: TypeCalibration }),
});
export type Calibration = z.infer<typeof Calibration>;
export type QuestionType = keyof Calibration["types"];

/** Directory of the committed calibration artifacts. */
export const CALIBRATION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "calibration");

const NAME = /^cal-([0-9]{8})-([0-9]+)\.json$/;

/** Newest artifact by (date, N) in `dir`, or throws when there is none. */
export function newestCalibrationPath(dir = CALIBRATION_DIR): string {
  const files = readdirSync(dir)
    .map((f) => ({ f, m: NAME.exec(f) }))
    .filter((x): x is { f: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => (a.m[1] as string).localeCompare(b.m[1] as string) || Number(a.m[2]) - Number(b.m[2]));
  const last = files.at(-1);
  if (!last) throw new Error(`no calibration artifact cal-YYYYMMDD-N.json in ${dir}`);
  return join(dir, last.f);
}

/** Loads `path`, or `SVC_CALIBRATION`, or the newest artifact; validates its shape. */
export function loadCalibration(path = process.env.SVC_CALIBRATION || newestCalibrationPath()): Calibration {
  const parsed = Calibration.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(`calibration ${path} is malformed: ${parsed.error.message}`);
  return parsed.data;
}

/** The content-free state of `cal` (used by its `contextual` types). */
export const contentFreeState = (cal: Calibration) => cal.content_free_state ?? "N/A";

/** Scores minus content-free scores, outcome by outcome (an unreachable outcome keeps its raw score). */
export function subtractContentFree(scores: number[], free: number[]): number[] {
  return scores.map((v, i) => {
    const c = free[i] as number;
    return Number.isFinite(v) && Number.isFinite(c) ? v - c : v;
  });
}

/** Numerically stable softmax. */
export function softmax(z: number[]): number[] {
  const max = Math.max(...z);
  if (max === Number.NEGATIVE_INFINITY) return z.map(() => 1 / z.length);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/**
 * Calibrated distribution over a question's outcomes: z_i = s_i' / T + (bias[i] ?? 0), where T is
 * `temperature_by_outcomes[K]` for K outcomes when present, else `temperature`, and
 * s_i' = s_i / tokens_i when `length_normalize`, else s_i; then softmax. Check outcomes are [yes, no]
 * (bias[0] belongs to yes). The evaluation harness fits with this same function.
 */
export function applyCalibration(
  type: QuestionType,
  scores: number[],
  tokensPerOutcome: number[],
  cal: Calibration,
): number[] {
  const t = cal.types[type];
  const temperature = t.temperature_by_outcomes?.[String(scores.length)] ?? t.temperature;
  const bias = t.bias_by_outcomes?.[String(scores.length)] ?? t.bias;
  const z = scores.map((s, i) => {
    const n = tokensPerOutcome[i] ?? 1;
    const s2 = t.length_normalize && n > 0 ? s / n : s;
    return s2 / temperature + (bias[i] ?? 0);
  });
  return softmax(z);
}

/**
 * The phrasing map of a type. With S̄, C̄ the phrasings' mean scores on the state and on the content-free state
 * and D̄ = S̄ − C̄: z_i = scale · X_i + free_weight · C̄_i + agreement_slope · agree · D̄_i + bias_i, where X = D̄
 * for a contextual type without `free_weight` (pure contextual calibration), else X = S̄ (a fitted
 * `free_weight` = partial subtraction of the content-free prior; 0 or absent on a raw type).
 */
export interface PhraseMethod {
  scale: number;
  free_weight?: number;
  agreement_slope: number;
  bias: number[];
}

const argmaxOf = (v: number[]) => v.reduce((best, x, i) => (x > (v[best] as number) ? i : best), 0);
const floor = (v: number) => (Number.isFinite(v) ? Math.max(-100, v) : -100);
const meanOf = (xs: number[][]) =>
  Array.from(
    { length: (xs[0] as number[]).length },
    (_, i) => xs.reduce((t, d) => t + floor(d[i] as number), 0) / xs.length,
  );

export interface PhraseFeatures {
  /** Mean over phrasings of the state scores (S̄). */
  state: number[];
  /** Mean over phrasings of the content-free scores (C̄; zeros without them). */
  free: number[];
  /** S̄ − C̄. */
  mean: number[];
  /** Share of phrasings whose own top outcome (of S − C) is the top outcome of the mean. */
  agree: number;
}

/**
 * Per outcome, the phrasings' mean scores on the state and on the content-free state (when given), their
 * difference, and the share of phrasings that agree with it. An unreachable outcome (−∞) is floored at −100 so
 * that one phrasing cannot erase an outcome the others rate.
 */
export function phraseFeatures(scores: number[][], free?: number[][]): PhraseFeatures {
  const state = meanOf(scores);
  const fr = free ? meanOf(free) : state.map(() => 0);
  const per = scores.map((s, k) => s.map((v, i) => floor(v) - (free ? floor(free[k]?.[i] as number) : 0)));
  const mean = state.map((v, i) => v - (fr[i] as number));
  const top = argmaxOf(mean);
  const agree = per.filter((d) => argmaxOf(d) === top).length / per.length;
  return { state, free: fr, mean, agree };
}

/** z of a phrasing map (see `PhraseMethod`), before the softmax. */
export function phraseLogits(f: PhraseFeatures, m: PhraseMethod, contextual: boolean): number[] {
  const x = contextual && m.free_weight === undefined ? f.mean : f.state;
  return x.map(
    (v, i) =>
      m.scale * v +
      (m.free_weight ?? 0) * (f.free[i] as number) +
      m.agreement_slope * f.agree * (f.mean[i] as number) +
      (m.bias[i] ?? 0),
  );
}

/** Calibrated distribution of a type that has `phrasings` (see the schema above). */
export function applyPhrased(
  type: QuestionType,
  scores: number[][],
  free: number[][] | undefined,
  cal: Calibration,
): number[] {
  const t = cal.types[type];
  const f = phraseFeatures(scores, t.contextual ? free : undefined);
  const m: PhraseMethod = {
    scale: 1 / t.temperature,
    free_weight: t.content_free_weight,
    agreement_slope: t.agreement_slope ?? 0,
    bias: t.bias,
  };
  return softmax(phraseLogits(f, m, t.contextual === true));
}
