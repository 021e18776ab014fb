import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { FRAMINGS } from "../../../gpu-worker/src/framings";
import { MODELS } from "../../../schema/models";

describe("'Each decision names the calibration version applied'", () => {
  it.each(MODELS.filter((m) => m.served_by === "gpu" && m.status === "active").map((m) => [m.id]))(
    "%s: the catalog's calibration is a committed artifact the engine loads, with a known framing",
    (id) => {
      const path = catalogCalibrationPath(id)!;
      expect(existsSync(path)).toBe(true);
      const cal = loadCalibration(path);
      expect(cal.version).toBe(MODELS.find((m) => m.id === id)!.calibration);
      expect(FRAMINGS[cal.framing]).toBeDefined();
    },
  );

  it("the fallback versions name the identity calibration (their distribution is used as it comes)", () => {
    for (const m of MODELS.filter((x) => x.served_by === "fallback")) {
      const cal = loadCalibration(catalogCalibrationPath(m.id)!);
      for (const t of Object.values(cal.types)) expect(t).toMatchObject({ temperature: 1, bias: [] });
    }
  });
});
