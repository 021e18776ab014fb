import { type CalibrationMap, identityMap, logProbabilities } from "../../schema/calibration-map";
import type { WordCounts } from "../../schema/learned/features";

/**
 * One labelled answer: the version's unrounded distribution and the index of the expected label; with the words
 * of its rendered state (`wordCounts`) when the fit may also read the state (issue 49).
 */
export interface Labelled {
  p: readonly number[];
  y: number;
  words?: WordCounts;
}

/** How a map is shaped: a temperature alone, or a temperature and a bias (check: on yes; else per label). */
export type FitMethod = "temperature" | "temperature_bias";

/**
 * Weight of the prior that holds the map near the version's (temperature 1, bias 0): a Gaussian of unit width on
 * 1/temperature and on each bias, worth about one labelled item. It keeps the fit finite when the labels are
 * separable (a check answered right every time would otherwise want an infinite 1/temperature).
 */
export const PRIOR_WEIGHT = 1;
const MAX_ITERATIONS = 200;
const MEMORY = 8;

interface Problem {
  logs: number[][];
  ys: number[];
  k: number;
  /** Which bias entries are free: none, yes only (check), or every label. */
  freeBias: number[];
}

/** The parameters x = [1/temperature, free biases…] as a map. */
function toMap(problem: Problem, x: readonly number[]): CalibrationMap {
  const bias = new Array(problem.k).fill(0);
  problem.freeBias.forEach((i, j) => {
    bias[i] = x[j + 1] as number;
  });
  return { temperature: 1 / (x[0] as number), bias };
}

/** Summed NLL plus the prior, and its gradient, at x. */
function objective(problem: Problem, x: readonly number[]): { f: number; g: number[] } {
  const s = x[0] as number;
  const bias = toMap(problem, x).bias;
  const g = new Array(x.length).fill(0);
  const gb = new Array(problem.k).fill(0);
  let f = 0;
  const z = new Array(problem.k);
  for (let n = 0; n < problem.logs.length; n++) {
    const l = problem.logs[n]!;
    const y = problem.ys[n]!;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < problem.k; i++) {
      z[i] = s * l[i]! + (bias[i] as number);
      if (z[i] > max) max = z[i];
    }
    let sum = 0;
    for (let i = 0; i < problem.k; i++) sum += Math.exp(z[i] - max);
    f += Math.log(sum) + max - z[y];
    for (let i = 0; i < problem.k; i++) {
      const d = Math.exp(z[i] - max) / sum - (i === y ? 1 : 0);
      g[0] += d * l[i]!;
      gb[i] += d;
    }
  }
  f += (PRIOR_WEIGHT / 2) * (s - 1) ** 2;
  g[0] += PRIOR_WEIGHT * (s - 1);
  problem.freeBias.forEach((i, j) => {
    const b = x[j + 1] as number;
    f += (PRIOR_WEIGHT / 2) * b * b;
    g[j + 1] = (gb[i] as number) + PRIOR_WEIGHT * b;
  });
  return { f, g };
}

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((t, v, i) => t + v * b[i]!, 0);

/**
 * Minimises a smooth convex objective over x with x[0] > 0 (L-BFGS, backtracking line search). Deterministic:
 * the same examples give the same map bit for bit.
 */
function minimise(problem: Problem, start: number[]): number[] {
  let x = start;
  let { f, g } = objective(problem, x);
  const ss: number[][] = [];
  const ys: number[][] = [];
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    if (Math.sqrt(dot(g, g)) < 1e-7 * Math.max(1, problem.logs.length)) break;
    // Two-loop recursion: d = −H·g.
    const q = [...g];
    const alphas: number[] = [];
    for (let j = ss.length - 1; j >= 0; j--) {
      const a = dot(ss[j]!, q) / dot(ys[j]!, ss[j]!);
      alphas[j] = a;
      for (let i = 0; i < q.length; i++) q[i] = q[i]! - a * ys[j]![i]!;
    }
    const last = ss.length - 1;
    const gamma =
      last >= 0
        ? dot(ss[last]!, ys[last]!) / dot(ys[last]!, ys[last]!)
        : 1 / Math.max(1, problem.logs.length);
    for (let i = 0; i < q.length; i++) q[i] = q[i]! * gamma;
    for (let j = 0; j < ss.length; j++) {
      const b = dot(ys[j]!, q) / dot(ys[j]!, ss[j]!);
      for (let i = 0; i < q.length; i++) q[i] = q[i]! + ss[j]![i]! * (alphas[j]! - b);
    }
    let d = q.map((v) => -v);
    let slope = dot(d, g);
    if (!(slope < 0)) {
      d = g.map((v) => -v / Math.max(1, problem.logs.length));
      slope = dot(d, g);
      ss.length = 0;
      ys.length = 0;
    }
    let step = 1;
    let next: number[] | null = null;
    let nf = 0;
    let ng: number[] = [];
    for (let tries = 0; tries < 40; tries++, step /= 2) {
      const cand = x.map((v, i) => v + step * d[i]!);
      if (!(cand[0]! > 1e-3)) continue;
      const o = objective(problem, cand);
      if (o.f <= f + 1e-4 * step * slope) {
        next = cand;
        nf = o.f;
        ng = o.g;
        break;
      }
    }
    if (!next) break;
    const sv = next.map((v, i) => v - x[i]!);
    const yv = ng.map((v, i) => v - g[i]!);
    if (dot(sv, yv) > 1e-12) {
      ss.push(sv);
      ys.push(yv);
      if (ss.length > MEMORY) {
        ss.shift();
        ys.shift();
      }
    }
    const done = Math.abs(f - nf) <= 1e-12 * Math.max(1, Math.abs(f));
    x = next;
    f = nf;
    g = ng;
    if (done) break;
  }
  return x;
}

/**
 * Fits a map by NLL on labelled answers of one question (k outcomes), starting from the version's map.
 * `check` keeps its bias on yes (outcome 0) only, so the order of P(yes) never changes.
 */
export function fitMap(
  type: "pick" | "rate" | "check",
  k: number,
  items: readonly Labelled[],
  method: FitMethod,
): CalibrationMap {
  const freeBias =
    method === "temperature" ? [] : type === "check" ? [0] : Array.from({ length: k }, (_, i) => i);
  const problem: Problem = {
    logs: items.map((e) => logProbabilities(e.p)),
    ys: items.map((e) => e.y),
    k,
    freeBias,
  };
  const start = [1, ...freeBias.map(() => 0)];
  return items.length === 0 ? identityMap(k) : toMap(problem, minimise(problem, start));
}
