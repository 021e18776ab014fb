/**
 * `tsx gpu-worker/eval/real/model-cost.ts <gguf> [<gguf> …]`: CPU cost of each model file on the same 60
 * real-text held-out items (every 20th, framing plain-mix-2, threads 1, one after the other so both see the same
 * machine load): load time, seconds and tokens evaluated per item.
 */
import { getFraming } from "../../src/framings";
import { openScorer } from "../../src/scorer";
import { everyNth, loadRealDataset } from "./score-real";

const items = everyNth(
  loadRealDataset().filter((i) => i.split === "heldout"),
  20,
);
const framing = getFraming("plain-mix-2");
for (const path of process.argv.slice(2)) {
  const t0 = performance.now();
  const scorer = await openScorer({ modelPath: path, threads: 1, sequences: 1, contextSize: 1024 });
  const loaded = performance.now();
  let tokens = 0;
  for (const it of items)
    tokens += (await scorer.rawScores(it.state, [it.question], framing)).meter.tokens_evaluated;
  const s = (performance.now() - loaded) / 1000;
  console.log(
    `${path.split("/").at(-1)}: load ${((loaded - t0) / 1000).toFixed(1)} s; ${items.length} items in ${s.toFixed(1)} s (${((s / items.length) * 1000).toFixed(0)} ms/item, ${tokens} tokens, ${(tokens / s).toFixed(0)} tokens/s)`,
  );
  await scorer.close();
}
