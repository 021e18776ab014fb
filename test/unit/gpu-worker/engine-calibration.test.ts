import { describe, expect, it } from "vitest";
import {
  applyCalibration,
  Calibration,
  loadCalibration,
  newestCalibrationPath,
} from "../../../gpu-worker/src/calibration";

const cal = (t: Partial<Calibration["types"]["pick"]>): Calibration => ({
  version: "cal-20261121-9",
  framing: "plain-qa",
  types: {
    pick: { temperature: 1, bias: [], ...t },
    rate: { temperature: 1, bias: [] },
    check: { temperature: 1, bias: [] },
  },
});

describe("calibration: z_i = s_i'/temperature + bias[i], then softmax", () => {
  it("identity calibration is the softmax of the scores", () => {
    const p = applyCalibration("pick", [Math.log(0.2), Math.log(0.6), Math.log(0.2)], [1, 1, 1], cal({}));
    for (const [i, v] of p.entries()) expect(v).toBeCloseTo([0.2, 0.6, 0.2][i] as number, 12);
  });
  it("temperature flattens, bias shifts by position, length_normalize divides by tokens", () => {
    const t2 = applyCalibration("pick", [0, -2], [1, 1], cal({ temperature: 2 }));
    expect(t2[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    const b = applyCalibration("pick", [0, 0], [1, 1], cal({ bias: [0, Math.log(3)] }));
    expect(b[1]).toBeCloseTo(0.75, 12);
    const ln = applyCalibration("pick", [-4, -1], [4, 1], cal({ length_normalize: true }));
    expect(ln[0]).toBeCloseTo(0.5, 12);
  });
  it("temperature_by_outcomes overrides the temperature for that number of outcomes only", () => {
    const c = cal({ temperature: 1, temperature_by_outcomes: { "2": 2 } });
    expect(applyCalibration("pick", [0, -2], [1, 1], c)[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    expect(applyCalibration("pick", [0, -2, -50], [1, 1, 1], c)[0]).toBeCloseTo(1 / (1 + Math.exp(-2)), 6);
  });
  it("bias_by_outcomes overrides the bias for that number of outcomes only", () => {
    const c = cal({ temperature: 1, bias: [0, 0, 0], bias_by_outcomes: { "2": [1, 0] } });
    expect(applyCalibration("pick", [0, 0], [1, 1], c)[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
    expect(applyCalibration("pick", [0, 0, 0], [1, 1, 1], c)[0]).toBeCloseTo(1 / 3, 12);
  });
  it("loads the newest committed artifact and names its version", () => {
    expect(newestCalibrationPath()).toMatch(/cal-\d{8}-\d+\.json$/);
    expect(loadCalibration().version).toMatch(/^cal-\d{8}-\d+$/);
  });
  it("a type field the engine does not apply (the removed `gate`, `relevance_weight`) is refused, not ignored", () => {
    for (const extra of [{ gate: { mode: "mix" } }, { relevance_weight: 0.4 }]) {
      const bad = { ...cal({}), types: { ...cal({}).types, check: { temperature: 1, bias: [], ...extra } } };
      expect(Calibration.safeParse(bad).success).toBe(false);
    }
    expect(Calibration.safeParse({ ...cal({}), note: "top-level notes are allowed" }).success).toBe(true);
  });
});
