import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../../gpu-worker/src/spawn-worker";
import { ScoreResponse } from "../../../schema/engine-protocol";
import { ALIASES, findModel, MODELS } from "../../../schema/models";

// One real worker process serves every active GPU version by default, each with the calibration the catalog pins.
let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker({
    GPU_SIGNING_SECRET: "test-secret-versions",
    SVC_THREADS: "1",
    SVC_CONTEXT_SIZE: "512",
  });
});
afterAll(async () => {
  await w?.stop();
});

let n = 0;
const call = (model: string) =>
  w.score(
    JSON.stringify({
      request_id: `v${++n}`,
      model,
      state: "The customer wrote: my parcel arrived broken, I want my money back.",
      questions: [
        { id: "refund", type: "check", instructions: "Does the customer ask for a refund?", criteria: [] },
      ],
    }),
    "test-secret-versions",
  );

describe("versions served by one worker", () => {
  it.each([
    ...new Set([
      ...MODELS.filter((m) => m.served_by === "gpu" && m.status === "active").map((m) => m.id),
      ALIASES["svc-1"] as string,
    ]),
  ])("%s answers with the calibration the catalog pins for it", async (model) => {
    const res = await call(model);
    expect(res.status).toBe(200);
    const body = ScoreResponse.parse(await res.json());
    expect(body.model).toBe(model);
    expect(body.calibration).toBe(findModel(model)?.calibration);
  });

  it.each(["svc-1.0.0", "svc-1.1.0", "svc-1.2.0"])(
    "the old exact version %s is recomputed byte for byte (a replay of an original stays identical)",
    async (model) => {
      const a = ScoreResponse.parse(await (await call(model)).json());
      const b = ScoreResponse.parse(await (await call(model)).json());
      expect(JSON.stringify(b.answers)).toBe(JSON.stringify(a.answers));
    },
  );
});
