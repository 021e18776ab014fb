import { nll } from "../../schema/metrics";
import { applyCalibration, type Calibration, type QuestionType } from "../src/calibration";

/** One training example: raw label scores, tokens per outcome, and the correct outcome index. */
export interface Example {
  scores: number[];
  tokens: number[];
  answer: number;
}

export type TypeFit = Calibration["types"][QuestionType];

/** Raw scores are floored so an unreachable label (−∞) cannot poison the fit. */
const FLOOR = -100;
const clean = (s: number) => (Number.isFinite(s) ? Math.max(FLOOR, s) : FLOOR);

/** Applies one type's fit with the engine's own `applyCalibration`, so evaluation sees what the engine computes. */
export function calibrate(
  type: QuestionType,
  fit: TypeFit,
  ex: Pick<Example, "scores" | "tokens">,
): number[] {
  const identity = { temperature: 1, bias: [] as number[] };
  const cal: Calibration = {
    version: "cal-00000000-0",
    framing: "",
    types: { pick: identity, rate: identity, check: identity, [type]: fit },
  };
  return applyCalibration(type, ex.scores.map(clean), ex.tokens, cal);
}

/** Mean NLL + gradient of z_i = a·s_i' + b_i (convex in a and b), with a small L2 on b to pin the softmax gauge. */
function lossGrad(
  xs: number[][],
  ys: number[],
  a: number,
  b: number[],
  l2: number,
): { loss: number; ga: number; gb: number[] } {
  let loss = 0;
  let ga = 0;
  const gb = b.map(() => 0);
  xs.forEach((s, n) => {
    const z = s.map((v, i) => a * v + (b[i] ?? 0));
    const m = Math.max(...z);
    const e = z.map((v) => Math.exp(v - m));
    const sum = e.reduce((x, y) => x + y, 0);
    const y = ys[n] as number;
    loss += Math.log(sum) + m - (z[y] as number);
    e.forEach((ev, i) => {
      const g = ev / sum - (i === y ? 1 : 0);
      ga += g * (s[i] as number);
      gb[i] = (gb[i] as number) + g;
    });
  });
  const N = Math.max(1, xs.length);
  loss = loss / N + l2 * b.reduce((x, v) => x + v * v, 0);
  return { loss, ga: ga / N, gb: gb.map((g, i) => g / N + 2 * l2 * (b[i] as number)) };
}

/**
 * Fits inverse temperature a = 1/T (> 0) and a bias per outcome position by minimising mean NLL on `train`
 * (gradient descent with backtracking; deterministic). `fixLast`: bias of the last position pinned at 0
 * (used for check so that bias[0] alone carries the yes/no offset); `noBias`: every bias pinned at 0.
 */
export function fitType(
  train: Example[],
  lengthNormalize: boolean,
  opts: { fixLast?: boolean; noBias?: boolean; iters?: number } = {},
): TypeFit {
  const xs = train.map((e) =>
    e.scores.map((s, i) => (lengthNormalize ? clean(s) / Math.max(1, e.tokens[i] ?? 1) : clean(s))),
  );
  const ys = train.map((e) => e.answer);
  const k = Math.max(0, ...xs.map((s) => s.length));
  const l2 = opts.fixLast ? 0 : 1e-4;
  let a = 1;
  let b = new Array<number>(k).fill(0);
  let step = 1;
  let cur = lossGrad(xs, ys, a, b, l2);
  for (let it = 0; it < (opts.iters ?? 3000); it++) {
    const gb = cur.gb.map((g, i) => (opts.noBias || (opts.fixLast && i === k - 1) ? 0 : g));
    const gnorm2 = cur.ga ** 2 + gb.reduce((x, g) => x + g * g, 0);
    if (gnorm2 < 1e-14) break;
    let accepted = false;
    while (step > 1e-10) {
      const na = Math.max(1e-3, a - step * cur.ga);
      const nb = b.map((v, i) => v - step * (gb[i] as number));
      const next = lossGrad(xs, ys, na, nb, l2);
      if (next.loss <= cur.loss - 1e-4 * step * gnorm2) {
        [a, b, cur] = [na, nb, next];
        step *= 1.5;
        accepted = true;
        break;
      }
      step /= 2;
    }
    if (!accepted) break;
  }
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { temperature: round(1 / a), bias: b.map(round), length_normalize: lengthNormalize };
}

/** Outcome counts with at least this many training examples get their own temperature and bias. */
export const MIN_EXAMPLES_PER_K = 30;

/**
 * Adds a temperature and a bias per outcome count K (3- and 5-level rates, 2- to 5-option picks do not share
 * one scale), fitted on that K's training examples with the chosen length normalisation. Other K keep `fit`'s
 * temperature but no position bias: a bias fitted on a mix of 3- and 5-level scales would push, say, a
 * 4-level rating toward its last level for no reason.
 */
export function fitPerOutcomes(train: Example[], fit: TypeFit, fixLast: boolean): TypeFit {
  const byK = new Map<number, Example[]>();
  for (const e of train) byK.set(e.scores.length, [...(byK.get(e.scores.length) ?? []), e]);
  const temperature_by_outcomes: Record<string, number> = {};
  const bias_by_outcomes: Record<string, number[]> = {};
  for (const [k, group] of [...byK].sort((a, b) => a[0] - b[0])) {
    if (group.length < MIN_EXAMPLES_PER_K) continue;
    const f = fitType(group, fit.length_normalize ?? false, { fixLast });
    temperature_by_outcomes[String(k)] = f.temperature;
    bias_by_outcomes[String(k)] = f.bias;
  }
  return Object.keys(temperature_by_outcomes).length
    ? { ...fit, bias: [], temperature_by_outcomes, bias_by_outcomes }
    : fit;
}

/** Fits with length normalisation off and on; keeps the one with the lower train NLL. */
export function fitBest(
  type: QuestionType,
  train: Example[],
): { fit: TypeFit; trainNll: { off: number; on: number } } {
  const nllOf = (f: TypeFit) =>
    nll(
      train.map((e) => calibrate(type, f, e)),
      train.map((e) => e.answer),
    );
  const off = fitType(train, false, { fixLast: type === "check" });
  const on = fitType(train, true, { fixLast: type === "check" });
  const [nOff, nOn] = [nllOf(off), nllOf(on)];
  const global = nOn < nOff ? on : off;
  const perK = fitPerOutcomes(train, global, type === "check");
  return { fit: nllOf(perK) < nllOf(global) ? perK : global, trainNll: { off: nOff, on: nOn } };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * One temperature per type and no bias (`svc-1.5.0`'s map, docs/quality.md): fitted by train NLL, rounded to
 * 2 decimals (finer is noise at these sample sizes). A bias fitted on a few dozen items learns the set's label
 * prior and turns clear answers around; a temperature keeps every ordering the model makes.
 */
export function fitTemperature(train: Example[]): TypeFit {
  const { temperature } = fitType(train, false, { noBias: true });
  return { temperature: round2(temperature), bias: [], length_normalize: false };
}

/**
 * A temperature and a bias per outcome position fitted together by train NLL, rounded to 2 decimals; for check
 * only the yes bias (`svc-1.5.1`'s check, fitted on the whole train split: docs/quality.md). Raw scores, no
 * length normalisation.
 */
export function fitTemperatureAndBias(type: QuestionType, train: Example[]): TypeFit {
  const f = fitType(train, false, { fixLast: type === "check" });
  return { temperature: round2(f.temperature), bias: f.bias.map(round2), length_normalize: false };
}
