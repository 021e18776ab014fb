import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachingScorer } from "../../../gpu-worker/eval/score-cache";
import { loadSet } from "../../../gpu-worker/eval/sets";
import { answer, examples, gpuVersion, servedCalibration } from "../../../gpu-worker/eval/versions";
import { Engine } from "../../../gpu-worker/src/engine";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";

const model = defaultModelPath();
const all = loadSet("real");
// Two items per type; the sentiment rate and check share a state (one request answers both).
const rated = all.find((i) => i.type === "rate") as (typeof all)[number];
const items = [
  rated,
  ...all.filter((i) => i.type === "check" && i.state === rated.state).slice(0, 1),
  ...all.filter((i) => i.type === "check").slice(0, 1),
  ...all.filter((i) => i.type === "pick").slice(0, 2),
];

describe.skipIf(!existsSync(model))("npm run eval on the real svc-1 model (npm run model:pull)", () => {
  let scorer: Scorer;
  let dir: string;
  beforeAll(async () => {
    scorer = await openScorer({ modelPath: model, threads: 1, sequences: 1, contextSize: 1024 });
    dir = mkdtempSync(join(tmpdir(), "svc-eval-"));
  }, 60_000);
  afterAll(async () => {
    await scorer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores every question once; a re-run reads them all from the cache without opening the model", async () => {
    const first = cachingScorer(async () => scorer, dir, "svc-1", 1024);
    const ex = await examples(first, "plain-mix-2", items);
    expect(first.stats.scored).toBe(items.length);
    for (const e of Object.values(ex).flat())
      expect(e.scores.every((s) => Number.isFinite(s) && s < 0)).toBe(true);
    const again = cachingScorer(
      async () => Promise.reject(new Error("opened the model")),
      dir,
      "svc-1",
      1024,
    );
    expect(await examples(again, "plain-mix-2", items)).toEqual(ex);
    expect(again.stats).toMatchObject({ scored: 0, cached: items.length });
  }, 60_000);

  it("a version answers from the cache exactly as its engine answers on the model (phrasings, content-free passes)", async () => {
    const v = gpuVersion("svc-1.4.0");
    const cal = servedCalibration(v);
    const direct = new Engine(scorer, cal, v.id);
    const cached = await answer(
      new Engine(
        cachingScorer(async () => scorer, dir, "svc-1", 1024),
        cal,
        v.id,
      ),
      items,
      () => {},
    );
    for (const it of items) {
      const req = {
        request_id: it.id,
        model: v.id,
        state: it.state,
        questions: [{ ...it.question, id: "q" }],
      };
      expect(cached.get(it.id)).toEqual((await direct.distributions(req)).probabilities[0]);
    }
  }, 60_000);
});
