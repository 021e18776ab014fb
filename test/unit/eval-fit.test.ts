import { describe, expect, it } from "vitest";
import { Rng } from "../../gpu-worker/eval/dataset/rng";
import { calibrate, type Example, fitBest, fitType } from "../../gpu-worker/eval/fit";
import { nll } from "../../gpu-worker/eval/metrics";
import { applyCalibration } from "../../gpu-worker/src/calibration";

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
});
