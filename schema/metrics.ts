/** Evaluation metrics over predicted distributions `probs[i]` and correct outcome indexes `answers[i]`. */
import { Rng } from "./rng";

/** Index of the largest probability; ties go to the earlier outcome (as the engine's `choice`). */
export function argmax(p: number[]): number {
  let best = 0;
  for (let i = 1; i < p.length; i++) if ((p[i] as number) > (p[best] as number)) best = i;
  return best;
}

export function accuracy(probs: number[][], answers: number[]): number {
  if (!probs.length) return Number.NaN;
  return probs.filter((p, i) => argmax(p) === answers[i]).length / probs.length;
}

/** ROC AUC of `scores` for binary `labels` (Mann–Whitney U; ties count one half). NaN without both classes. */
export function auc(scores: number[], labels: boolean[]): number {
  const idx = scores.map((s, i) => ({ s, y: labels[i] as boolean })).sort((a, b) => a.s - b.s);
  const nPos = idx.filter((x) => x.y).length;
  const nNeg = idx.length - nPos;
  if (!nPos || !nNeg) return Number.NaN;
  // Average ranks over tie groups.
  let rankSumPos = 0;
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j < idx.length && (idx[j] as { s: number }).s === (idx[i] as { s: number }).s) j++;
    const avgRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if ((idx[k] as { y: boolean }).y) rankSumPos += avgRank;
    i = j;
  }
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/** Expected calibration error: equal-width bins over [0, 1] of `conf`; Σ (n_b/N)·|mean(outcome) − mean(conf)|. */
export function ece(conf: number[], outcome: boolean[], bins = 15): number {
  if (!conf.length) return Number.NaN;
  const n = new Array<number>(bins).fill(0);
  const sc = new Array<number>(bins).fill(0);
  const so = new Array<number>(bins).fill(0);
  conf.forEach((c, i) => {
    const b = Math.min(bins - 1, Math.max(0, Math.floor(c * bins)));
    n[b] = (n[b] as number) + 1;
    sc[b] = (sc[b] as number) + c;
    so[b] = (so[b] as number) + (outcome[i] ? 1 : 0);
  });
  let e = 0;
  for (let b = 0; b < bins; b++) {
    const nb = n[b] as number;
    if (nb) e += (nb / conf.length) * Math.abs((so[b] as number) / nb - (sc[b] as number) / nb);
  }
  return e;
}

/** ECE on top-label confidence: max probability vs whether the argmax is correct. */
export function topLabelEce(probs: number[][], answers: number[], bins = 15): number {
  return ece(
    probs.map((p) => Math.max(...p)),
    probs.map((p, i) => argmax(p) === answers[i]),
    bins,
  );
}

/** Multi-class Brier score: mean over items of Σ_k (p_k − 1[k = answer])². */
export function brier(probs: number[][], answers: number[]): number {
  if (!probs.length) return Number.NaN;
  let s = 0;
  probs.forEach((p, i) => {
    p.forEach((pk, k) => {
      s += (pk - (k === answers[i] ? 1 : 0)) ** 2;
    });
  });
  return s / probs.length;
}

/** Mean negative log-likelihood of the correct outcome (probabilities floored at 1e-12). */
export function nll(probs: number[][], answers: number[]): number {
  if (!probs.length) return Number.NaN;
  let s = 0;
  probs.forEach((p, i) => {
    s -= Math.log(Math.max(1e-12, p[answers[i] as number] as number));
  });
  return s / probs.length;
}

/**
 * Expected top-label ECE-15 of a perfectly calibrated predictor with these confidences: outcomes drawn as
 * Bernoulli(confidence), `draws` times (seeded, deterministic). An ECE measured on N items cannot be read
 * below this floor: it is what sampling noise alone gives.
 */
export function eceNoiseFloor(conf: number[], draws = 400, bins = 15): number {
  const rng = new Rng(0x5eed);
  let sum = 0;
  for (let d = 0; d < draws; d++)
    sum += ece(
      conf,
      conf.map((c) => rng.next() < c),
      bins,
    );
  return sum / draws;
}

export interface Report {
  n: number;
  accuracy: number;
  ece: number;
  brier: number;
  nll: number;
  /** check only: AUC of P(yes) and ECE of P(yes) against the yes frequency. */
  auc?: number;
  eceYes?: number;
  /** Mean top-label confidence (how sure the model claims to be). */
  meanConfidence: number;
  /** `eceNoiseFloor` of the top-label confidences: the ECE-15 sampling noise alone gives at this n. */
  eceFloor: number;
}

/** All metrics for one question type; for check, outcome 0 is yes. */
export function report(probs: number[][], answers: number[], check: boolean): Report {
  const r: Report = {
    n: probs.length,
    accuracy: accuracy(probs, answers),
    ece: topLabelEce(probs, answers),
    brier: brier(probs, answers),
    nll: nll(probs, answers),
    meanConfidence: probs.reduce((s, p) => s + Math.max(...p), 0) / Math.max(1, probs.length),
    eceFloor: eceNoiseFloor(probs.map((p) => Math.max(...p))),
  };
  if (check) {
    const pYes = probs.map((p) => p[0] as number);
    const yes = answers.map((a) => a === 0);
    r.auc = auc(pYes, yes);
    r.eceYes = ece(pYes, yes);
  }
  return r;
}
