import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CALIBRATION_DIR, Calibration, loadCalibration } from "../../../gpu-worker/src/calibration";
import { getFraming } from "../../../gpu-worker/src/framings";
import { SVC_1_0_0_CALIBRATION as CALIBRATION_VERSION } from "../../../schema/models";

describe(`calibration artifact ${CALIBRATION_VERSION} (svc-1.0.0's, fitted on the computed set)`, () => {
  const path = join(CALIBRATION_DIR, `${CALIBRATION_VERSION}.json`);
  const cal = Calibration.parse(JSON.parse(readFileSync(path, "utf8")));

  it("loads with the engine's loader and names a framing the engine has", () => {
    expect(loadCalibration(path).version).toBe(CALIBRATION_VERSION);
    expect(getFraming(cal.framing).mode).toBe("label");
  });

  it("has a positive temperature per type and a bias per position (check: [yes, no = 0])", () => {
    expect(cal.types.pick.bias).toHaveLength(4);
    expect(cal.types.check.bias).toHaveLength(2);
    expect(cal.types.check.bias[1]).toBe(0);
    for (const t of Object.values(cal.types)) expect(t.temperature).toBeGreaterThan(0);
  });

  it("rate: a temperature and bias per level count seen in training (3, 5); other counts get no position bias", () => {
    const rate = cal.types.rate;
    expect(Object.keys(rate.temperature_by_outcomes ?? {})).toEqual(["3", "5"]);
    expect(rate.bias_by_outcomes?.["3"]).toHaveLength(3);
    expect(rate.bias_by_outcomes?.["5"]).toHaveLength(5);
    expect(rate.bias).toEqual([]);
  });
});
