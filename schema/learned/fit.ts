/**
 * Fitting a state-reading model (`model.ts`) on labelled answers with their states' words: NLL with an L2
 * penalty on the word weights (`l2`) and the map's prior on the stack (scale near 1, bias near 0, weight 1 as in
 * workers/calibrations/fit.ts), minimised by L-BFGS (`optimise.ts`) for at most ITERATIONS steps, items and
 * parameters always visited in order: the same labels give the same model bit for bit.
 */
import { logProbabilities } from "../calibration-map";
import { WORDS_PROCEDURE, type WordCounts } from "./features";
import { type FeatureVector, featureVector, MAX_MODEL_BYTES, type WordsModel, wordsModelJson } from "./model";
import { lbfgs } from "./optimise";

/** One labelled answer with its state's words. */
export interface WordsExample {
  p: readonly number[];
  y: number;
  words: WordCounts;
}

/** A bucket is read only when at least this many items of the fit have it (one item's words teach nothing). */
export const MIN_DF = 2;
/** Largest vocabulary a fit starts from (the size cap may keep fewer). */
export const MAX_VOCAB = 16_384;
/** L-BFGS steps at most per fit. */
export const ITERATIONS = 200;
/** Weight of the prior holding the stack near the version's map (as the map's own fit). */
const PRIOR_WEIGHT = 1;

const round = (x: number, scale: number) => Math.round(x * scale) / scale;

/** What one fit reads: the vocabulary, each item's vector and log-probabilities, which rows are free. */
export interface WordsProblem {
  k: number;
  /** Weight rows (check 1: yes only; pick and rate k). */
  rows: number;
  /** Free biases (check: yes only). */
  freeBias: number[];
  vocab: number[];
  idf: number[];
  xs: FeatureVector[];
  logs: number[][];
  ys: number[];
}

/** Vocabulary buckets a model with `rows` weight rows can keep under the cap (about 16 + 10·rows bytes each). */
export const vocabBudget = (rows: number, maxBytes = MAX_MODEL_BYTES) =>
  Math.min(MAX_VOCAB, Math.floor(maxBytes / (16 + 10 * rows)));

/**
 * The problem of fitting on `items`: buckets in at least MIN_DF items, the most frequent first (ties: the
 * smaller bucket) up to `budget`, then ascending; idf to 4 decimals, so the fit reads x exactly as a decide will.
 */
export function wordsProblem(
  type: "pick" | "rate" | "check",
  k: number,
  items: readonly WordsExample[],
  budget = vocabBudget(type === "check" ? 1 : k),
  keep?: readonly number[],
): WordsProblem {
  const df = new Map<number, number>();
  for (const e of items) for (const b of e.words.buckets) df.set(b, (df.get(b) ?? 0) + 1);
  const allowed = keep ? new Set(keep) : null;
  const vocab = [...df.entries()]
    .filter(([b, n]) => n >= MIN_DF && (!allowed || allowed.has(b)))
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, budget)
    .map(([b]) => b)
    .sort((a, b) => a - b);
  const idf = vocab.map((b) => round(Math.log((1 + items.length) / (1 + (df.get(b) as number))) + 1, 1e4));
  return {
    k,
    rows: type === "check" ? 1 : k,
    freeBias: type === "check" ? [0] : Array.from({ length: k }, (_, i) => i),
    vocab,
    idf,
    xs: items.map((e) => featureVector(vocab, idf, e.words)),
    logs: items.map((e) => logProbabilities(e.p)),
    ys: items.map((e) => e.y),
  };
}

/** Parameters: [scale, free biases…, weight rows (row-major, rows × vocabulary)]. */
const weightOffset = (pr: WordsProblem) => 1 + pr.freeBias.length;

/** Summed NLL plus the penalties, gradient into `g`. */
function objective(pr: WordsProblem, l2: number, x: Float64Array, g: Float64Array): number {
  const v = pr.vocab.length;
  const off = weightOffset(pr);
  g.fill(0);
  const bias = new Array<number>(pr.k).fill(0);
  pr.freeBias.forEach((c, i) => {
    bias[c] = x[1 + i] as number;
  });
  const s = x[0] as number;
  const z = new Array<number>(pr.k);
  let f = 0;
  for (let n = 0; n < pr.logs.length; n++) {
    const l = pr.logs[n] as number[];
    const xv = pr.xs[n] as FeatureVector;
    const y = pr.ys[n] as number;
    let max = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < pr.k; c++) {
      let zc = s * (l[c] as number) + (bias[c] as number);
      if (c < pr.rows)
        for (let t = 0; t < xv.index.length; t++)
          zc += (x[off + c * v + (xv.index[t] as number)] as number) * (xv.value[t] as number);
      z[c] = zc;
      if (zc > max) max = zc;
    }
    let sum = 0;
    for (let c = 0; c < pr.k; c++) sum += Math.exp((z[c] as number) - max);
    f += Math.log(sum) + max - (z[y] as number);
    for (let c = 0; c < pr.k; c++) {
      const d = Math.exp((z[c] as number) - max) / sum - (c === y ? 1 : 0);
      g[0] = (g[0] as number) + d * (l[c] as number);
      const fb = pr.freeBias.indexOf(c);
      if (fb >= 0) g[1 + fb] = (g[1 + fb] as number) + d;
      if (c < pr.rows)
        for (let t = 0; t < xv.index.length; t++) {
          const i = off + c * v + (xv.index[t] as number);
          g[i] = (g[i] as number) + d * (xv.value[t] as number);
        }
    }
  }
  f += (PRIOR_WEIGHT / 2) * (s - 1) ** 2;
  g[0] = (g[0] as number) + PRIOR_WEIGHT * (s - 1);
  for (let i = 1; i < off; i++) {
    f += (PRIOR_WEIGHT / 2) * (x[i] as number) ** 2;
    g[i] = (g[i] as number) + PRIOR_WEIGHT * (x[i] as number);
  }
  for (let i = off; i < x.length; i++) {
    f += (l2 / 2) * (x[i] as number) ** 2;
    g[i] = (g[i] as number) + l2 * (x[i] as number);
  }
  return f;
}

/** The version's map with no word weight: where every fit starts. */
export function startOf(pr: WordsProblem): Float64Array {
  const x = new Float64Array(weightOffset(pr) + pr.rows * pr.vocab.length);
  x[0] = 1;
  return x;
}

/** Minimises the problem's objective with weight `l2` from `start` (default: the version's map). */
export function solveWords(pr: WordsProblem, l2: number, start = startOf(pr)): Float64Array {
  return lbfgs((x, g) => objective(pr, l2, x, g), start, ITERATIONS);
}

/** The parameters as a stored model: word weights to 5 decimals (what is stored is what is applied). */
export function toWordsModel(pr: WordsProblem, x: Float64Array, l2: number): WordsModel {
  const v = pr.vocab.length;
  const off = weightOffset(pr);
  const bias = new Array<number>(pr.k).fill(0);
  pr.freeBias.forEach((c, i) => {
    bias[c] = x[1 + i] as number;
  });
  return {
    procedure: WORDS_PROCEDURE,
    vocab: pr.vocab,
    idf: pr.idf,
    scale: x[0] as number,
    bias,
    weights: Array.from({ length: pr.rows }, (_, c) =>
      Array.from(x.subarray(off + c * v, off + (c + 1) * v), (w) => round(w, 1e5) + 0),
    ),
    l2,
  };
}

/**
 * Fits a model with L2 weight `l2` on `items`. If its JSON text is longer than `maxBytes`, only the half of its
 * buckets with the largest |weight| (any row; ties: the smaller bucket) are kept and it is fitted again, until
 * it fits.
 */
export function fitWordsModel(
  type: "pick" | "rate" | "check",
  k: number,
  items: readonly WordsExample[],
  l2: number,
  maxBytes = MAX_MODEL_BYTES,
): WordsModel {
  let pr = wordsProblem(type, k, items, vocabBudget(type === "check" ? 1 : k, maxBytes));
  for (;;) {
    const model = toWordsModel(pr, solveWords(pr, l2), l2);
    if (wordsModelJson(model).length <= maxBytes || model.vocab.length === 0) return model;
    const size = (j: number) => Math.max(...model.weights.map((w) => Math.abs(w[j] as number)));
    const kept = model.vocab
      .map((b, j) => ({ b, s: size(j) }))
      .sort((a, b) => b.s - a.s || a.b - b.b)
      .slice(0, Math.floor(model.vocab.length / 2))
      .map((e) => e.b);
    pr = wordsProblem(type, k, items, kept.length, kept);
  }
}
