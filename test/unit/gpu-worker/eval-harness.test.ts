import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../../gpu-worker/eval/load";
import { scoreItems } from "../../../gpu-worker/eval/score-cache";
import { getFraming } from "../../../gpu-worker/src/framings";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";

const model = defaultModelPath();
const all = loadDataset();
// Two items per type, one sharing a state with another question (number extremes).
const items = [
  ...all.filter((i) => i.id.startsWith("num-ext-0-")),
  ...all.filter((i) => i.type === "rate").slice(0, 2),
  ...all.filter((i) => i.type === "check").slice(0, 2),
];

describe.skipIf(!existsSync(model))("eval harness on the real svc-1 model (npm run model:pull)", () => {
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

  it("scores every item once, caches it, and a re-run scores nothing", async () => {
    const f = getFraming("plain-qa");
    const first = await scoreItems(async () => scorer, f, items, dir);
    expect(first.stats.scored).toBe(items.length);
    for (const it of items) {
      const r = first.results.get(it.id);
      expect(r?.scores.every((s) => Number.isFinite(s) && s < 0)).toBe(true);
    }
    const again = await scoreItems(undefined, f, items, dir);
    expect(again.stats).toMatchObject({ scored: 0, cached: items.length });
    expect(readFileSync(join(dir, "plain-qa.jsonl"), "utf8").trim().split("\n")).toHaveLength(items.length);
  }, 60_000);

  it("the chosen composite framing gives exactly its part's scores (so fits on the parts hold for it)", async () => {
    const mix = getFraming("plain-mix-1");
    const { results } = await scoreItems(async () => scorer, mix, items, dir);
    for (const it of items) {
      const part = getFraming(mix.parts?.[it.type] as string);
      const { results: p } = await scoreItems(async () => scorer, part, [it], dir);
      expect(results.get(it.id)?.scores).toEqual(p.get(it.id)?.scores);
    }
  }, 60_000);
});
