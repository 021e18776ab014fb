/**
 * A state-reading calibration (issue 49): a linear model over the state's hashed words (`features.ts`) stacked
 * with the version's answer. For outcome c of a question with k outcomes:
 *
 *   z_c = scale · log p_c + bias_c + Σ_j weights[c][j] · x_j,   then softmax,
 *
 * where log p is the version's floored log-probability (`logProbabilities`, as a map reads it) and x the state's
 * vector over the model's vocabulary: v_j = (1 + ln count_j) · idf_j for each vocabulary bucket the state has,
 * then x = v / ‖v‖₂ (x = 0 when the state has none). With no weights this is today's map (temperature
 * 1/scale, a bias); a check has one weight row and a bias on yes only, so it is a logistic regression on
 * (logit of P(yes), x). Rows past `weights.length` are 0.
 *
 * Exact: every sum runs in one fixed order (ascending bucket, then outcome order), in IEEE double arithmetic;
 * the only library functions are `Math.log` and `Math.exp` (V8's fdlibm ports, the same in Node and workerd on
 * every x86-64 machine) and `Math.sqrt` (correctly rounded by IEEE 754). So a replay of a decide gives the same
 * bytes, and two machines give the same bytes.
 */
import { logProbabilities, softmax } from "../calibration-map";
import { WORDS_PROCEDURE, type WordCounts } from "./features";

/** A stored state-reading model (JSON, at most MAX_MODEL_BYTES). */
export interface WordsModel {
  /** The feature procedure it was fitted with (`WORDS_PROCEDURE`). */
  procedure: string;
  /** The buckets it reads, ascending. */
  vocab: number[];
  /** Per vocabulary bucket: ln((1 + N) / (1 + df)) + 1 over the N items it was fitted on, 4 decimals. */
  idf: number[];
  /** Weight on the version's log-probabilities (1 / temperature). */
  scale: number;
  /** Per outcome (check: [yes, 0]). */
  bias: number[];
  /** Per outcome, one weight per vocabulary bucket (check: the yes row only). */
  weights: number[][];
  /** The L2 weight the fit chose by cross-validation (shown, not applied). */
  l2: number;
}

/** A stored model's JSON text is at most this long (256 KiB): larger fits keep only their largest weights. */
export const MAX_MODEL_BYTES = 256 * 1024;

/** The state's vector over a model's vocabulary: `index` into the vocabulary (ascending), `value` x_j. */
export interface FeatureVector {
  index: number[];
  value: number[];
}

/** x for `words` over `vocab`/`idf` (see the module's comment); a merge of two ascending lists. */
export function featureVector(
  vocab: readonly number[],
  idf: readonly number[],
  words: WordCounts,
): FeatureVector {
  const index: number[] = [];
  const value: number[] = [];
  let i = 0;
  let j = 0;
  while (i < words.buckets.length && j < vocab.length) {
    const b = words.buckets[i] as number;
    const v = vocab[j] as number;
    if (b < v) i++;
    else if (b > v) j++;
    else {
      index.push(j);
      value.push((1 + Math.log(words.counts[i] as number)) * (idf[j] as number));
      i++;
      j++;
    }
  }
  let sq = 0;
  for (let n = 0; n < value.length; n++) sq += (value[n] as number) * (value[n] as number);
  if (sq > 0) {
    const norm = Math.sqrt(sq);
    for (let n = 0; n < value.length; n++) value[n] = (value[n] as number) / norm;
  }
  return { index, value };
}

/** z before the softmax, for the version's log-probabilities `logs` and the state's `x`. */
export function stackedScores(
  m: Pick<WordsModel, "scale" | "bias" | "weights">,
  logs: readonly number[],
  x: FeatureVector,
): number[] {
  return logs.map((l, c) => {
    let z = m.scale * l + (m.bias[c] ?? 0);
    const w = m.weights[c];
    if (w)
      for (let n = 0; n < x.index.length; n++)
        z += (w[x.index[n] as number] as number) * (x.value[n] as number);
    return z;
  });
}

/** The calibrated distribution of one question: `model` applied to the version's unrounded `p` and the state's words. */
export function applyWordsModel(model: WordsModel, p: readonly number[], words: WordCounts): number[] {
  if (model.procedure !== WORDS_PROCEDURE) throw new Error(`unknown feature procedure ${model.procedure}`);
  return softmax(stackedScores(model, logProbabilities(p), featureVector(model.vocab, model.idf, words)));
}

/** The model's stored JSON text (field order fixed). */
export function wordsModelJson(m: WordsModel): string {
  return JSON.stringify({
    procedure: m.procedure,
    vocab: m.vocab,
    idf: m.idf,
    scale: m.scale,
    bias: m.bias,
    weights: m.weights,
    l2: m.l2,
  });
}

/** A stored model read back (throws on a shape it does not know). */
export function readWordsModel(text: string): WordsModel {
  const m = JSON.parse(text) as WordsModel;
  const rows = Array.isArray(m.weights) ? m.weights : [];
  if (
    typeof m.procedure !== "string" ||
    !Array.isArray(m.vocab) ||
    !Array.isArray(m.idf) ||
    m.idf.length !== m.vocab.length ||
    typeof m.scale !== "number" ||
    !Array.isArray(m.bias) ||
    rows.some((w) => !Array.isArray(w) || w.length !== m.vocab.length)
  )
    throw new Error("not a state-reading calibration model");
  return m;
}
