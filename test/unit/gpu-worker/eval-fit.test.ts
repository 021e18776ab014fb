import { describe, expect, it } from "vitest";
import {
  calibrate,
  type Example,
  fitBest,
  fitPerOutcomes,
  fitTemperature,
  fitTemperatureAndBias,
  fitType,
  MIN_EXAMPLES_PER_K,
} from "../../../gpu-worker/eval/fit";
import { applyCalibration } from "../../../gpu-worker/src/calibration";
import { nll } from "../../../schema/metrics";
import { Rng } from "../../../schema/rng";

/** Samples answers from a known affine-softmax model z_i = a·s_i + b_i. */
function synthetic(a: number, b: number[], n: number, seed: number): Example[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const scores = b.map(() => -rng.next() * 4);
    const z = scores.map((s, i) => a * s + (b[i] as number));
    const m = Math.max(...z);
    const e = z.map((v) => Math.exp(v - m));
    const sum = e.reduce((x, y) => x + y, 0);
    let u = rng.next() * sum;
    let answer = 0;
    while (answer < e.length - 1 && u > (e[answer] as number)) u -= e[answer++] as number;
    return { scores, tokens: b.map(() => 1), answer };
  });
}

describe("calibration fit", () => {
  it("recovers temperature and the yes bias of a known model (check: bias[0] for yes, bias[1] pinned at 0)", () => {
    const fit = fitType(synthetic(2, [0.8, 0], 4000, 7), false, { fixLast: true });
    expect(fit.temperature).toBeCloseTo(0.5, 1);
    expect(fit.bias[0]).toBeCloseTo(0.8, 1);
    expect(fit.bias[1]).toBe(0);
  });

  it("is deterministic and never worse than identity on its training data", () => {
    const train = synthetic(0.3, [0, 1, -0.5, 0.2], 800, 3);
    const a = fitBest("pick", train);
    const b = fitBest("pick", train);
    expect(a).toEqual(b);
    const ys = train.map((e) => e.answer);
    const before = nll(
      train.map((e) => calibrate("pick", { temperature: 1, bias: [] }, e)),
      ys,
    );
    const after = nll(
      train.map((e) => calibrate("pick", a.fit, e)),
      ys,
    );
    expect(after).toBeLessThan(before);
  });

  it("calibrate() is exactly the engine's applyCalibration with the fitted type", () => {
    const fit = { temperature: 2, bias: [0.3, -0.1], length_normalize: true };
    const ex = { scores: [-2, -6], tokens: [1, 3] };
    const cal = { version: "cal-20261121-9", framing: "x", types: { pick: fit, rate: fit, check: fit } };
    expect(calibrate("check", fit, ex)).toEqual(applyCalibration("check", ex.scores, ex.tokens, cal));
  });
  it("fits a temperature and bias per outcome count K; a K unseen in training gets the global temperature, no bias", () => {
    // 3-outcome questions are sharp (a = 3), 5-outcome ones flat (a = 0.3): one global map cannot serve both.
    const train = [...synthetic(3, [0, 0.5, 0], 1500, 11), ...synthetic(0.3, [0, 0, 0, 1, 1], 1500, 12)];
    const global = fitType(train, false);
    const perK = fitPerOutcomes(train, global, false);
    expect(Object.keys(perK.temperature_by_outcomes ?? {})).toEqual(["3", "5"]);
    expect(perK.temperature_by_outcomes?.["3"]).toBeCloseTo(1 / 3, 1);
    expect(perK.temperature_by_outcomes?.["5"]).toBeGreaterThan(2); // true 3.3; a flat model is estimated loosely
    expect(perK.bias_by_outcomes?.["3"]).toHaveLength(3);
    const ys = train.map((e) => e.answer);
    const nllOf = (f: typeof global) =>
      nll(
        train.map((e) => calibrate("rate", f, e)),
        ys,
      );
    expect(nllOf(perK)).toBeLessThan(nllOf(global));
    expect(fitBest("rate", train).fit.temperature_by_outcomes).toBeDefined();
    // K = 4 was never seen: the engine uses the global temperature and no position bias for it.
    const unseen = { scores: [-1, -2, -3, -4], tokens: [1, 1, 1, 1] };
    expect(perK.bias).toEqual([]);
    expect(calibrate("rate", perK, unseen)).toEqual(calibrate("rate", { ...global, bias: [] }, unseen));
  });

  it(`a K with fewer than ${MIN_EXAMPLES_PER_K} training examples gets no per-K entry`, () => {
    const train = [...synthetic(1, [0, 0], 200, 5), ...synthetic(1, [0, 0, 0], MIN_EXAMPLES_PER_K - 1, 6)];
    const perK = fitPerOutcomes(train, fitType(train, false), false);
    expect(Object.keys(perK.temperature_by_outcomes ?? {})).toEqual(["2"]);
  });

  it("a temperature-only fit recovers T with no bias, rounded to 2 decimals", () => {
    const fit = fitTemperature(synthetic(0.5, [0, 0, 0], 4000, 9));
    expect(fit).toMatchObject({ bias: [], length_normalize: false });
    expect(fit.temperature).toBeCloseTo(2, 0);
    expect(Math.round(fit.temperature * 100) / 100).toBe(fit.temperature);
  });

  it("a temperature-and-bias fit recovers a check's yes bias with no bias on no, rounded to 2 decimals", () => {
    const fit = fitTemperatureAndBias("check", synthetic(0.5, [-1, 0], 4000, 11));
    expect(fit.temperature).toBeCloseTo(2, 0);
    expect(fit.bias[0]).toBeCloseTo(-1, 0);
    expect(fit.bias[1]).toBe(0);
    for (const v of [fit.temperature, ...fit.bias]) expect(Math.round(v * 100) / 100).toBe(v);
  });
});
